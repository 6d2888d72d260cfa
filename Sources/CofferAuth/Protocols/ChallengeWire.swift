import Foundation

/// What differs between the challenge protocols: MobileFirst 8 (docs/protocol.md section 8)
/// and Mobile Client Access (section 9). Everything else, from dispatching challenges to
/// caching tokens, is shared.
protocol ChallengeWire: Sendable {
    /// The server this wire talks to.
    var server: ChallengeServer { get }
    /// Where clients register (8.1, 9.1).
    var registrationURL: URL { get }
    /// Where codes are exchanged for tokens (8.3, 9.2).
    var tokenURL: URL { get }
    /// One authorization round for `scope`, carrying `answers` by check. With `wantsCode`, a
    /// granted round carries the authorization code.
    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound
    /// Logs the client out of `check` at the server; `false` when the protocol has no such call.
    func logout(check: String, client: ClientRegistration, transport: HTTPTransport) async throws(AuthError) -> Bool
    /// Whether a token of `scope` depends on `check`, so that logging out of the check forgets it.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool
    /// The scope a resource's reply asks a token for, or `nil` when the reply is not this
    /// protocol's request for a token.
    func requiredScope(_ response: HTTPResponse) -> TokenScope?
}

extension ChallengeWire {
    /// Registers a new client.
    func register(transport: HTTPTransport) async throws(AuthError) -> ClientRegistration {
        try await ClientRegistrationRequest.register(at: registrationURL, server: server, transport: transport)
    }

    /// Exchanges an authorization code for a token.
    func token(code: String, client: ClientRegistration, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        try await AuthorizationCode.exchange(code: code, at: tokenURL, client: client, transport: transport)
    }
}
