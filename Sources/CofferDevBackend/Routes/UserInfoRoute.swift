import Hummingbird

extension DevBackendState {
    /// `GET` and `POST /oidc/userinfo` (OpenID Connect Core §5.3) with `Authorization: Bearer`:
    /// `sub` and the claims of the token's scope (``DevIdentity``). A missing, unknown, expired or
    /// revoked token gets 401 `invalid_token`; a user token without `openid` 403 `insufficient_scope`.
    func addUserInfoRoute<Context: RequestContext>(to router: Router<Context>) {
        for method in [HTTPRequest.Method.get, .post] {
            router.on(RouterPath(DevBackendPath.OpenID.userinfo), method: method) { request, _ -> Response in
                self.statistics.count(\.userinfoRequests)
                let caller = Caller(request)
                guard let value = caller.bearer else { return Reply.unauthorized("Bearer") }
                guard let token = self.tokens.valid(value, at: self.now), let user = token.userName else {
                    return Reply.unauthorized("Bearer", error: "invalid_token")
                }
                guard token.scope.contains("openid") else {
                    return Reply.bearer(["realm": "coffer-dev", "error": "insufficient_scope", "scope": "openid"], status: .forbidden)
                }
                return Reply.json(DevIdentity.claims(of: user, scope: Array(token.scope)))
            }
        }
    }
}
