import Hummingbird

extension DevBackendState {
    /// Oracle Mobile Hub's user endpoints for HTTP Basic, with the backend id:
    ///
    /// - `GET /mobile/platform/users/login`: 200 `{"username"}` for valid credentials;
    /// - `GET /mobile/platform/users/~`: 200 `{"username", "firstName", "lastName", "email"}`;
    /// - `GET /mobile/platform/users/logout`: 200 `{}`.
    ///
    /// Bad credentials or a wrong backend id get 401 with `WWW-Authenticate: Basic` and Oracle's
    /// error body (`title`, `detail`, `o:ecid`, `o:errorCode`, `o:errorPath`).
    func addMobileHubUserRoutes<Context: RequestContext>(to router: Router<Context>) {
        let routes: [(path: String, counter: WritableKeyPath<DevBackend.Statistics, Int> & Sendable)] = [
            (DevBackendPath.basicCheck, \.basicChecks), (DevBackendPath.currentUser, \.currentUserRequests), (DevBackendPath.userLogout, \.userLogouts),
        ]
        for (path, counter) in routes {
            router.get(RouterPath(path)) { request, _ -> Response in
                self.statistics.count(counter)
                let caller = Caller(request)
                guard self.acceptsBackendID(caller), let user = self.user(caller.basic) else {
                    return Reply.mobileHubError(
                        status: .unauthorized, title: "Authentication failed",
                        detail: "The user name or password is not valid, or the request names another mobile backend.",
                        code: "MOBILE-16004", path: path, headers: [.wwwAuthenticate: "Basic realm=\"coffer-dev\""])
                }
                switch path {
                case DevBackendPath.currentUser:
                    return Reply.json(["username": .string(user), "firstName": .string(user), "lastName": "Demo", "email": .string("\(user)@example.com")])
                case DevBackendPath.userLogout:
                    return Reply.json([:])
                default:
                    return Reply.json(["username": .string(user)])
                }
            }
        }
    }
}
