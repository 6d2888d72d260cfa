import Foundation

/// RFC 7009 revocation: `POST token=…&token_type_hint=…`, a confidential client authenticated
/// by HTTP Basic, a public one naming itself with `client_id`. 200 means revoked (or already
/// invalid, §2.2).
enum TokenRevocation {
    /// Revokes an OMC session's access token.
    static func revoke(_ token: AccessToken, at endpoint: URL, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) {
        try await revoke(token.value, hint: "access_token", at: endpoint, client: backend.oauthClient?.credentials,
                         backendID: backend.backendID, transport: transport)
    }

    /// Revokes `token` (`hint`: `access_token` or `refresh_token`).
    static func revoke(
        _ token: String, hint: String, at endpoint: URL, client: ClientCredentials?, backendID: String?, transport: HTTPTransport
    ) async throws(AuthError) {
        let pairs = [("token", token), ("token_type_hint", hint)]
        let request = BackendRequest.form(
            endpoint, client?.formPairs(pairs) ?? pairs, backendID: backendID, authorization: client?.authorizationHeader)
        let response = try await transport.send(request)
        switch response.status {
        case 200: return
        case 400, 401, 403: throw TokenEndpointReply.refusal(response)
        default: throw .serverError(status: response.status)
        }
    }
}
