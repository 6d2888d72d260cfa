/// Oracle Mobile Hub's SSO token exchange: `GET {base}/mobile/platform/sso/exchange-token`
/// with `Authorization: Bearer <third-party token>`; the reply carries `access_token` and
/// usually `expires_in`.
package enum OMCTokenExchange {
    package static let path = "mobile/platform/sso/exchange-token"

    static func exchange(_ thirdPartyToken: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        let request = BackendRequest.make(
            .get, BackendRequest.url(path, below: backend), backend: backend, authorization: "Bearer \(thirdPartyToken)")
        return try TokenEndpointReply.token(from: try await transport.send(request), requireTokenType: false)
    }
}
