import Hummingbird

extension DevBackendState {
    /// `GET /protected`: 200 and the user's name for a valid user token or valid HTTP Basic
    /// credentials; 401 for anything else. `GET /anonymous`: the same, and also anonymous
    /// access (a client-credentials token, or a client's credentials as the anonymous key).
    func addResourceRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.protected)) { request, _ -> Response in
            self.statistics.count(\.resourceRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller) else { return Reply.unauthorized("Bearer") }
            if let user = self.user(caller.basic) {
                return Reply.json(["user": .string(user), "authenticatedBy": "basic"])
            }
            guard let value = caller.bearer else { return Reply.unauthorized("Bearer") }
            guard let token = self.tokens.valid(value, at: self.now), let user = token.userName else {
                return Reply.unauthorized("Bearer", error: "invalid_token")
            }
            return Reply.json(["user": .string(user), "authenticatedBy": .string(token.origin.rawValue)])
        }
        router.get(RouterPath(DevBackendPath.anonymous)) { request, _ -> Response in
            self.statistics.count(\.resourceRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller) else { return Reply.unauthorized("Bearer") }
            if let user = self.user(caller.basic) { return Reply.json(["user": .string(user), "client": .null]) }
            if let client = caller.client(among: self.configuration.clients) { return Reply.json(["user": .null, "client": .string(client)]) }
            guard let value = caller.bearer, let token = self.tokens.valid(value, at: self.now) else {
                return Reply.unauthorized("Bearer", error: caller.bearer == nil ? nil : "invalid_token")
            }
            return Reply.json(["user": token.userName.map(JSON.string) ?? .null, "client": token.clientID.map(JSON.string) ?? .null])
        }
    }
}
