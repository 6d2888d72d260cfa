import Hummingbird

extension DevBackendState {
    /// The resources behind the challenges.
    ///
    /// - MobileFirst, `GET /{runtime}/protected` (scope `UserLogin`), `/balance`
    ///   (`PinCodeAttempts`), `/transfer` (both) and `/registered` (`RegisteredClient` alone): 200
    ///   with a MobileFirst token whose scope holds `RegisteredClient` and the resource's; without
    ///   a token 401 with a bare `WWW-Authenticate: Bearer`; with a bad token 401 `Bearer
    ///   error="invalid_token"`; with a token of too small a scope 403 `Bearer
    ///   error="insufficient_scope", scope="RegisteredClient …"` (the Developer Center's replies).
    /// - MCA, `GET /mca/protected`: 200 with `Authorization: Bearer <access token> [<ID token>]`
    ///   (the ID token, when sent, must be the one issued with the access token), naming the user
    ///   and their `userIdentity`; without it 401 `WWW-Authenticate: Bearer realm="imfAuthentication"`,
    ///   with `error="invalid_token"` for a bad token; a header that is not that form is 400.
    func addChallengeResourceRoutes<Context: RequestContext>(to router: Router<Context>) {
        for (name, scope) in MobileFirstConfiguration.resources {
            let required = Set(scope.split(separator: " ").map(String.init) + [MobileFirstConfiguration.registeredClientScope])
            let named = ([MobileFirstConfiguration.registeredClientScope] + required.subtracting([MobileFirstConfiguration.registeredClientScope]).sorted())
                .joined(separator: " ")
            router.get(RouterPath(DevBackendPath.mobileFirst(name, configuration.mobileFirst))) { request, _ -> Response in
                self.statistics.count(\.resourceRequests)
                guard let value = Caller(request).bearer else { return Reply.bearer([:]) }
                guard let token = self.tokens.valid(value, at: self.now), token.origin == .mobileFirst else {
                    return Reply.bearer(["error": "invalid_token"])
                }
                guard token.scope.isSuperset(of: required) else {
                    return Reply.bearer(["error": "insufficient_scope", "scope": named], status: .forbidden)
                }
                return Reply.json(Self.resourceBody(name, user: token.userName))
            }
        }
        router.get(RouterPath(ClientAccessConfiguration.protectedPath)) { request, _ -> Response in
            self.statistics.count(\.resourceRequests)
            let realm = #"realm="imfAuthentication""#
            guard let header = Caller(request).authorization else { return Reply.bearer(["realm": "imfAuthentication"]) }
            let parts = header.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard parts.count == 2 || parts.count == 3, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
                return Reply.json(["error": "invalid_request"], status: .badRequest, headers: [.wwwAuthenticate: "Bearer \(realm), error=\"invalid_request\""])
            }
            guard let token = self.tokens.valid(parts[1], at: self.now), token.origin == .clientAccess, let user = token.userName,
                  parts.count == 2 || parts[2] == token.idToken
            else { return Reply.bearer(["realm": "imfAuthentication", "error": "invalid_token"]) }
            return Reply.json(["user": .string(user), "userIdentity": self.userIdentity(user)])
        }
    }

    /// What each MobileFirst resource answers.
    private static func resourceBody(_ name: String, user: String?) -> [String: JSON] {
        let user: JSON = user.map { .string($0) } ?? .null
        switch name {
        case "balance": return ["balance": "19938.80"]
        case "transfer": return ["transferred": true, "user": user]
        default: return ["resource": .string(name), "user": user]
        }
    }
}
