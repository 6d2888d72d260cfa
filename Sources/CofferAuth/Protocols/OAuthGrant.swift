import AsyncHTTPClient
import Foundation

/// The token requests of RFC 6749 and RFC 8693, sent with the client authenticated by HTTP Basic.
enum OAuthGrant {
    /// §4.3: the resource owner password credentials grant.
    case password(BasicCredentials, scope: String?)
    /// §4.4: the client credentials grant, for anonymous access.
    case clientCredentials(scope: String?)
    /// RFC 8693 §2.1: token exchange.
    case tokenExchange(subjectToken: String, subjectTokenType: String, scope: String?)
    /// §4.1.3 with RFC 7636 §4.5: the authorization code grant of a native app, with its PKCE verifier.
    case authorizationCodeWithPKCE(code: String, redirectURI: String, codeVerifier: String)
    /// §6: refreshing an access token.
    case refreshToken(String, scope: String?)
    /// RFC 8628 §3.4: polling for the device authorization grant.
    case deviceCode(String)

    /// RFC 8628's grant type.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    var formPairs: [(String, String)] {
        var pairs: [(String, String)]
        let scope: String?
        switch self {
        case .password(let credentials, let grantScope):
            pairs = [("grant_type", "password"), ("username", credentials.user), ("password", credentials.password)]
            scope = grantScope
        case .clientCredentials(let grantScope):
            pairs = [("grant_type", "client_credentials")]
            scope = grantScope
        case .tokenExchange(let subjectToken, let subjectTokenType, let grantScope):
            pairs = [("grant_type", TokenExchangeForm.grantType), ("subject_token", subjectToken), ("subject_token_type", subjectTokenType)]
            scope = grantScope
        case .authorizationCodeWithPKCE(let code, let redirectURI, let codeVerifier):
            pairs = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", codeVerifier)]
            scope = nil
        case .refreshToken(let refreshToken, let grantScope):
            pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            scope = grantScope
        case .deviceCode(let deviceCode):
            pairs = [("grant_type", Self.deviceCodeGrantType), ("device_code", deviceCode)]
            scope = nil
        }
        if let scope { pairs.append(("scope", scope)) }
        return pairs
    }

    /// Sends the grant to `endpoint` and returns the checked token reply.
    func send(to endpoint: URL, client: OAuthClient?, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        try await send(to: endpoint, client: client, backendID: backend.backendID, transport: transport)
    }

    /// Sends the grant to `endpoint` for `client`: a confidential client authenticates with HTTP
    /// Basic (RFC 6749 §2.3.1), a public one names itself with `client_id` in the form (§4.1.3).
    func send(to endpoint: URL, client: ClientCredentials, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        try TokenEndpointReply.token(from: try await transport.send(request(to: endpoint, client: client)), requireTokenType: true)
    }

    /// The grant's request to `endpoint` for `client`, for callers that read the reply themselves.
    func request(to endpoint: URL, client: ClientCredentials) -> HTTPClientRequest {
        BackendRequest.form(endpoint, client.formPairs(formPairs), backendID: nil, authorization: client.authorizationHeader)
    }

    /// Sends the grant to `endpoint`, with the backend-id header when given.
    func send(to endpoint: URL, client: OAuthClient?, backendID: String?, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        let request = BackendRequest.form(endpoint, formPairs, backendID: backendID, authorization: client?.authorizationHeader)
        return try TokenEndpointReply.token(from: try await transport.send(request), requireTokenType: true)
    }
}
