import CofferAuth
import Hummingbird

extension DevBackendState {
    /// The resources behind the challenges.
    ///
    /// - MobileFirst, `GET /{runtime}/protected` (scope `UserLogin`), `/balance`
    ///   (`PinCodeAttempts`) and `/transfer` (both): 200 with a MobileFirst token of the scope;
    ///   otherwise 401 `WWW-Authenticate: Bearer scope="…"` (with `error="invalid_token"` for a
    ///   bad token), or 403 `Bearer error="insufficient_scope", scope="…"`.
    /// - MCA, `GET /mca/protected`: 200 with an MCA token, naming the user and their
    ///   `userIdentity`; otherwise 401 `WWW-Authenticate: Bearer realm="imfAuthentication"`.
    func addChallengeResourceRoutes<Context: RequestContext>(to router: Router<Context>) {
        for (name, scope) in MobileFirstConfiguration.resources {
            router.get(RouterPath(DevBackendPath.mobileFirst(name, configuration.mobileFirst))) { request, _ -> Response in
                self.statistics.count(\.resourceRequests)
                guard let value = Caller(request).bearer else { return Reply.bearer(["scope": scope]) }
                guard let token = self.tokens.valid(value, at: self.now), token.origin == .mobileFirst else {
                    return Reply.bearer(["error": "invalid_token", "scope": scope])
                }
                guard token.scope.isSuperset(of: scope.split(separator: " ").map(String.init)) else {
                    return Reply.bearer(["error": "insufficient_scope", "scope": scope], status: .forbidden)
                }
                return Reply.json(Self.resourceBody(name, user: token.userName))
            }
        }
        router.get(RouterPath(ClientAccessConfiguration.protectedPath)) { request, _ -> Response in
            self.statistics.count(\.resourceRequests)
            guard let value = Caller(request).bearer, let token = self.tokens.valid(value, at: self.now),
                  token.origin == .clientAccess, let user = token.userName
            else { return Reply.bearer(["realm": ClientAccessPath.resourceRealm]) }
            return Reply.json(["user": .string(user), "userIdentity": self.userIdentity(user)])
        }
    }

    /// What each MobileFirst resource answers.
    private static func resourceBody(_ name: String, user: String?) -> [String: JSONValue] {
        let user: JSONValue = user.map { .string($0) } ?? .null
        switch name {
        case "balance": return ["balance": "19938.80"]
        case "transfer": return ["transferred": true, "user": user]
        default: return ["resource": .string(name), "user": user]
        }
    }
}
