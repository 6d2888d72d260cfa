import Hummingbird

extension DevBackendState {
    /// `GET /mobile/platform/users/me`: 200 with the user's name for valid HTTP Basic
    /// credentials, 401 otherwise.
    func addBasicCheckRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.basicCheck)) { request, _ -> Response in
            self.statistics.count(\.basicChecks)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller), let user = self.user(caller.basic) else {
                return Reply.unauthorized("Basic")
            }
            return Reply.json(["username": .string(user)])
        }
    }
}
