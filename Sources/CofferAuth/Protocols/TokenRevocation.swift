import Foundation

/// RFC 7009 revocation: `POST token=…&token_type_hint=access_token` with the client
/// authenticated by HTTP Basic. 200 means revoked (or already invalid, §2.2).
enum TokenRevocation {
    static func revoke(_ token: AccessToken, at endpoint: URL, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) {
        let request = BackendRequest.form(
            endpoint, [("token", token.value), ("token_type_hint", "access_token")],
            backend: backend, authorization: backend.oauthClient?.authorizationHeader)
        let response = try await transport.send(request)
        switch response.status {
        case 200: return
        case 400, 401, 403: throw TokenEndpointReply.refusal(response)
        default: throw .serverError(status: response.status)
        }
    }
}
