import Hummingbird

extension DevBackendState {
    /// `POST /oauth2/v1/revoke` (RFC 7009): revokes the token; 200 even for an unknown token (§2.2).
    func addRevocationRoute<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.revocation)) { request, _ -> Response in
            self.statistics.count(\.revocations)
            let caller = Caller(request)
            guard let clientID = caller.client(among: self.configuration.clients) else {
                return Reply.oauthError("invalid_client", "client authentication failed")
            }
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let token = form["token"] else { return Reply.oauthError("invalid_request", "token is missing") }
            self.tokens.revoke(token, by: clientID)
            return Response(status: .ok)
        }
    }
}
