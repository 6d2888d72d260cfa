import Hummingbird

extension DevBackendState {
    /// `POST /oauth2/v1/revoke` (RFC 7009), for the OAuth clients and the OpenID clients
    /// (authenticated as at the token endpoint). A refresh token revokes its whole family,
    /// access tokens included; an access token only itself. `token_type_hint` is only a hint:
    /// both kinds are looked for. 200 even for an unknown token or another client's (§2.2).
    func addRevocationRoute<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.revocation)) { request, _ -> Response in
            self.statistics.count(\.revocations)
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let client = self.authenticateClient(Caller(request), form: form) else {
                return Reply.oauthError("invalid_client", "client authentication failed")
            }
            guard let token = form["token"] else { return Reply.oauthError("invalid_request", "token is missing") }
            if let family = self.refreshTokens.revoke(token, by: client.id) {
                self.tokens.revokeFamily(family)
                self.statistics.record(revokedKind: "refresh")
            } else {
                self.tokens.revoke(token, by: client.id)
                self.statistics.record(revokedKind: "other")
            }
            return Response(status: .ok)
        }
    }
}
