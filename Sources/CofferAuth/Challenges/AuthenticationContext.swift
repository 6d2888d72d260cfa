/// How an ``AuthenticationDelegate`` answers one challenge of its realm, as
/// `IMFAuthenticationContext` does in the MCA SDK. Its methods can be called from any thread;
/// only the first answer or failure counts.
public final class AuthenticationContext: Sendable {
    /// The realm the challenge came from.
    public let realm: String
    private let slot: AnswerSlot?

    init(realm: String, slot: AnswerSlot?) {
        self.realm = realm
        self.slot = slot
    }

    /// Sends `answer` to the realm. Returns `false` when the challenge is no longer waiting
    /// (it was answered, failed, timed out or abandoned), or this context came with a success
    /// or failure rather than a challenge.
    @discardableResult
    public func submitAuthenticationChallengeAnswer(_ answer: JSONValue) -> Bool {
        slot?.resolve(.answer(answer)) ?? false
    }

    /// Gives up on the challenge, for example when the user cancels: every request waiting
    /// for it fails with ``AuthError/challengeFailed(check:payload:)`` carrying `userInfo`.
    @discardableResult
    public func submitAuthenticationFailure(_ userInfo: JSONValue = .null) -> Bool {
        slot?.resolve(.failed(userInfo)) ?? false
    }
}

extension AuthenticationContext: CustomStringConvertible {
    /// The realm only.
    public var description: String { "AuthenticationContext(realm: \(realm))" }
}
