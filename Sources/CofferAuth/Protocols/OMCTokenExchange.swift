/// Oracle Mobile Hub's SSO token exchange: `GET {base}/mobile/platform/sso/exchange-token`
/// with `Authorization: Bearer <third-party token>`; the reply carries `access_token` and
/// usually `expires_in`.
enum OMCTokenExchange {
    static let path = "mobile/platform/sso/exchange-token"

    static func exchange(_ thirdPartyToken: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) -> TokenReply {
        let request = BackendRequest.make(
            .get, BackendRequest.url(path, below: backend), backend: backend, authorization: "Bearer \(thirdPartyToken)")
        let response = try await transport.send(request)
        switch response.status {
        case 200: return try TokenReply.parse(response, requireTokenType: false)
        case 401: throw .invalidCredentials
        default: throw ErrorReply.error(for: response)  // the SDK reads `detail` and `o:ecid`
        }
    }
}
