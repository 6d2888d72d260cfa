import AsyncHTTPClient
import Foundation

/// What differs between the challenge protocols: MobileFirst 8 (docs/protocol.md section 8)
/// and Mobile Client Access (section 9). Everything else, from dispatching challenges to
/// caching tokens, is shared.
protocol ChallengeWire: Sendable {
    /// The server this wire talks to.
    var server: ChallengeServer { get }
    /// Whether the server logs a client out of one security check at a time (MobileFirst),
    /// rather than ending its whole session (Mobile Client Access).
    var logsOutPerCheck: Bool { get }
    /// Registers a new client, with a new key, for the device `deviceID`; `now` checks what the
    /// server issues (Mobile Client Access's certificate).
    func register(deviceID: String, transport: HTTPTransport, at now: Date) async throws(AuthError) -> ClientRegistration
    /// Tells the server about a change of the data `client` registered with, when there is one
    /// (MobileFirst re-registers with `PUT`).
    func update(_ client: ClientRegistration, deviceID: String, transport: HTTPTransport) async throws(AuthError) -> RegistrationUpdate
    /// One authorization round for `scope`, carrying `answers` by check. With `wantsCode`, a
    /// granted round carries the authorization code.
    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound
    /// Exchanges an authorization code for a token, signing with the client's key at `now`
    /// (by the server's clock, as far as the client knows it).
    func token(code: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError) -> TokenStep
    /// Logs the client out at the server: of `check` when ``logsOutPerCheck``, else entirely.
    func logout(check: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError)
    /// Whether a token of `scope` depends on `check`, so that logging out of the check forgets it.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool
    /// The scope a resource's reply asks a token for, or `nil` when the reply is not this
    /// protocol's request for a token. `hint` is the scope the resource asked for last time.
    func requiredScope(_ response: HTTPReply, hint: TokenScope?) -> TokenScope?
    /// Sends a request for a protected resource.
    func sendResource(_ request: HTTPClientRequest, transport: HTTPTransport) async throws(AuthError) -> HTTPReply
}

/// What checking a stored registration found.
enum RegistrationUpdate: Sendable {
    /// The server has the current data.
    case current
    /// The server took the new data: keep this registration.
    case updated(ClientRegistration)
    /// The server no longer knows the client: register again.
    case unknownClient
}

/// What a token request gave.
enum TokenStep: Sendable {
    /// A token.
    case granted(TokenGrant)
    /// The server no longer knows the client: register again, then start over.
    case unknownClient
}

/// A token reply, with what the protocol makes of it.
struct TokenGrant: Sendable {
    let reply: TokenReply
    /// The user the reply names (Mobile Client Access's ID token, `imf.user`), if any.
    var user: AuthenticatedUser? = nil
    /// The ID token resources get beside the access token (Mobile Client Access:
    /// `Authorization: Bearer <access token> <ID token>`).
    var resourceIDToken: String? = nil
}
