/// Answers the custom challenges of one Mobile Client Access realm, as `IMFAuthenticationDelegate`
/// does in the MCA SDK. Register it with
/// ``ChallengeClient/registerAuthenticationDelegate(_:forRealm:)``, once for the app's lifetime.
///
/// ```swift
/// struct LoginDelegate: AuthenticationDelegate {
///     func didReceiveAuthenticationChallenge(context: AuthenticationContext, challenge: JSONValue) {
///         askForCredentials(challenge) { answer in
///             if let answer { context.submitAuthenticationChallengeAnswer(answer) }
///             else { context.submitAuthenticationFailure(["reason": "the user cancelled"]) }
///         }
///     }
/// }
/// client.registerAuthenticationDelegate(LoginDelegate(), forRealm: "customRealm")
/// ```
///
/// Coffer calls the methods one at a time, in order, on a task of its own (as for
/// ``SecurityCheckChallengeHandler``); answer through the context, later and from any thread.
/// Unlike the MCA SDK, a challenge that is never answered does not wait forever: requests fail
/// with ``AuthError/challengeTimeout(check:)`` after ``ClientConfiguration/loginTimeout``.
public protocol AuthenticationDelegate: Sendable {
    /// The realm sent a challenge: collect the answer and give it to
    /// ``AuthenticationContext/submitAuthenticationChallengeAnswer(_:)``, or report
    /// ``AuthenticationContext/submitAuthenticationFailure(_:)``.
    func didReceiveAuthenticationChallenge(context: AuthenticationContext, challenge: JSONValue)
    /// The realm authenticated the user; `userInfo["userIdentity"]` describes them.
    func didReceiveAuthenticationSuccess(context: AuthenticationContext, userInfo: JSONValue)
    /// The realm refused the answer.
    func didReceiveAuthenticationFailure(context: AuthenticationContext, userInfo: JSONValue)
}

extension AuthenticationDelegate {
    /// Does nothing.
    public func didReceiveAuthenticationSuccess(context: AuthenticationContext, userInfo: JSONValue) {}
    /// Does nothing.
    public func didReceiveAuthenticationFailure(context: AuthenticationContext, userInfo: JSONValue) {}
}
