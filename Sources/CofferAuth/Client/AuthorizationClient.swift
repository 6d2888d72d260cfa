import Foundation

/// What every login client does, whichever protocol it speaks: ``OpenIDClient`` (OpenID
/// Connect and OAuth 2.0), ``Authorization`` (Oracle Mobile Hub) and ``ChallengeClient``
/// (MobileFirst and Mobile Client Access). Each keeps its SDK's own calls (`authenticate`,
/// `obtainAccessToken`, `logInWithBrowser`, …) for logging in; code that only needs a token, an
/// authorized request, a logout or the session's events can take `any AuthorizationClient`.
///
/// ```swift
/// func fetchProfile(with client: any AuthorizationClient) async throws -> Data {
///     let reply = try await client.send(ResourceRequest(url: profileURL))
///     return reply.body
/// }
/// ```
public protocol AuthorizationClient: Sendable {
    /// The client's policies.
    var configuration: ClientConfiguration { get }

    /// The user logged in, as stored, without the network; `nil` when no one is.
    var user: AuthenticatedUser? { get async throws(AuthError) }

    /// A valid access token: the stored one, or a new one (a refresh, or a challenge answered
    /// through the registered handlers) when it has expired. Single-flight: concurrent callers
    /// share one request.
    func accessToken() async throws(AuthError) -> AccessToken

    /// Sends `request` with the session's credentials, only to the origins they belong to, and
    /// reads the whole reply; a token the server refuses is renewed once and the request sent again.
    func send(_ request: ResourceRequest) async throws(AuthError) -> HTTPReply

    /// Ends the session: the stored credentials are removed first, even when the server cannot
    /// be reached, then the server is told (revocation, logout). Throws
    /// ``AuthError/logoutIncomplete(_:)`` naming each server step that failed.
    @discardableResult
    func logout() async throws(AuthError) -> LogoutReport

    /// The session's changes from now on: logins, refreshes, logouts, and the end of a session
    /// the server refused to renew.
    func events() -> AsyncStream<SessionEvent>
}
