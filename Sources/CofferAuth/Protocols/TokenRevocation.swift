import Foundation

/// RFC 7009 revocation: `POST token=…&token_type_hint=…`, a confidential client authenticated
/// by HTTP Basic, a public one naming itself with `client_id`. 200 means revoked (or already
/// invalid, §2.2).
enum TokenRevocation {
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

    /// Revokes each of `tokens` in order (`hint`: `refresh_token` or `access_token`), as a logout
    /// does: every failure is a step of the report. Once the server cannot be reached, the
    /// remaining tokens fail with the same reason without another wait.
    static func revokeAll(
        _ tokens: [(token: String, hint: String)], at endpoint: URL, client: ClientCredentials?, backendID: String?, transport: HTTPTransport
    ) async -> (revoked: Bool, failures: [LogoutFailure]) {
        var revoked = false
        var failures: [LogoutFailure] = []
        var unreachable: AuthError?
        for (token, hint) in tokens {
            let step: LogoutFailure.Step = hint == "refresh_token" ? .revokeRefreshToken : .revokeToken
            if let unreachable {
                failures.append(LogoutFailure(step: step, reason: unreachable.description))
                continue
            }
            do {
                try await revoke(token, hint: hint, at: endpoint, client: client, backendID: backendID, transport: transport)
                revoked = true
            } catch {
                failures.append(LogoutFailure(step: step, reason: reason(error, client: client)))
                if error.isUnreachable { unreachable = error }
            }
        }
        return (revoked, failures)
    }

    /// Why a revocation failed, in words. A public client sends no credentials, so a provider
    /// that refuses it as unauthenticated requires client authentication for revocation
    /// (RFC 7009 §2.1 lets it); "the credentials were rejected" would be wrong.
    private static func reason(_ error: AuthError, client: ClientCredentials?) -> String {
        if error == .invalidCredentials, client?.secret == nil {
            return "the provider requires client authentication for revocation; this client has no secret to send"
        }
        return error.description
    }
}
