import Foundation

/// The authorization-code steps MobileFirst and Mobile Client Access share (docs/protocol.md
/// 8.3 and 9.2): `GET authorization` answers with a redirect carrying the code, and the token
/// endpoint exchanges it (RFC 6749 §4.1), the client authenticated by HTTP Basic.
enum AuthorizationCode {
    /// The `redirect_uri` sent with both steps. Nothing is ever loaded from it: the client
    /// reads the code from the redirect's `Location` and follows no redirect.
    static let redirectURI = "https://coffer.invalid/redirect"

    /// `GET url?response_type=code&client_id=…&redirect_uri=…[&scope=…]`, with `authorization`
    /// as the `Authorization` header when given.
    static func request(
        at url: URL, client: ClientRegistration, scope: TokenScope?, authorization: String? = nil, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound {
        var pairs = [("response_type", "code"), ("client_id", client.clientID), ("redirect_uri", redirectURI)]
        if let scope, !scope.text.isEmpty { pairs.append(("scope", scope.text)) }
        guard let target = URL(string: url.absoluteString + "?" + FormEncoding.encode(pairs)) else {
            throw .invalidRequest(reason: "the authorization URL cannot take a query")
        }
        return try ChallengeRound.parse(try await transport.send(BackendRequest.make(.get, target, backendID: nil, authorization: authorization)))
    }

    /// Exchanges `code` at `tokenURL`.
    static func exchange(code: String, at tokenURL: URL, client: ClientRegistration, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        try await OAuthGrant.authorizationCode(code: code, redirectURI: redirectURI)
            .send(to: tokenURL, client: client.oauthClient(tokenEndpoint: tokenURL), backendID: nil, transport: transport)
    }
}
