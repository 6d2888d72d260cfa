import Foundation
import Hummingbird

extension DevBackendState {
    /// The authorization endpoints (`GET …?response_type=code&client_id&redirect_uri[&scope]`):
    /// a 302 to `redirect_uri?code=…` once the checks are satisfied.
    ///
    /// - MobileFirst (`/{runtime}/api/az/v1/authorization`): the scope's checks must already be
    ///   satisfied (by preauthorize); otherwise the reply is preauthorize's 401 or 403.
    /// - MCA (`/imf-authserver/authorization/v1/apps/{tenant}/authorization`, with `X-WL-Session`):
    ///   the realm's answer comes as `Authorization: Bearer {"<realm>": {"username", "password"}}`;
    ///   no answer gets a 401 `WL-Composite-Challenge` with a secure-JSON body; a wrong one a
    ///   redirect with `wl_result={"WL-Authentication-Failure": {"<realm>": …}}` and no code; a
    ///   right one the redirect with the code and `wl_result={"WL-Authentication-Success":
    ///   {"<realm>": {"userIdentity": …}}}`.
    func addAuthorizationRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.authorization, configuration.mobileFirst))) { request, _ -> Response in
            self.statistics.count(\.authorizations)
            let query = self.query(request)
            guard query["response_type"] == "code", let clientID = query["client_id"], let redirectURI = query["redirect_uri"] else {
                return Reply.oauthError("invalid_request", "response_type=code, client_id and redirect_uri are required")
            }
            guard let checks = self.securityChecks(inScope: query["scope"]) else {
                return Reply.oauthError("invalid_scope", "the scope names an unknown security check")
            }
            guard self.clients.contains(clientID, of: .mobileFirst), let decision = self.decide(checks, for: clientID, answers: [:]) else {
                return Reply.unknownClient()
            }
            guard decision.isGranted else { return decision.reply(statistics: self.statistics) }
            let now = self.now
            let tokenExpiresAt = min(now.addingTimeInterval(self.configuration.mobileFirst.tokenLifetime), decision.satisfiedUntil ?? .distantFuture)
            let code = self.codes.issue(AuthorizationCodes.Grant(
                clientID: clientID, redirectURI: redirectURI,
                scope: Set(checks.map(\.rawValue) + [MobileFirstConfiguration.registeredClientScope]),
                subject: decision.user.map { .user($0) } ?? .client(clientID), origin: .mobileFirst,
                tokenExpiresAt: tokenExpiresAt, codeExpiresAt: now.addingTimeInterval(self.configuration.mobileFirst.codeLifetime)), now: now)
            return self.redirect(to: redirectURI, [("code", code)])
        }
        router.get(RouterPath(DevBackendPath.clientAccess(DevBackendPath.ClientAccess.authorization, configuration.clientAccess))) { request, _ -> Response in
            self.statistics.count(\.authorizations)
            guard let session = Self.session(of: request) else { return Self.missingSession() }
            let query = self.query(request)
            guard query["response_type"] == "code", let clientID = query["client_id"], let redirectURI = query["redirect_uri"] else {
                return Reply.oauthError("invalid_request", "response_type=code, client_id and redirect_uri are required")
            }
            guard self.clients.contains(clientID, of: .clientAccess) else { return Reply.unknownClient() }
            var answers: [String: JSON] = [:]
            if let value = Caller(request).bearer {
                guard let object = JSON(parsing: Data(value.utf8))?.objectValue else {
                    return Reply.oauthError("invalid_request", "the Authorization header carries no JSON answers")
                }
                answers = object
            }
            return self.realmReply(answer: answers[self.configuration.clientAccess.realm], clientID: clientID, redirectURI: redirectURI, session: session)
        }
    }

    /// The custom realm's verdict on `answer`, as the MCA authorization reply.
    private func realmReply(answer: JSON?, clientID: String, redirectURI: String, session: String) -> Response {
        let realm = configuration.clientAccess.realm
        guard let answer, !answer.isNull else {
            statistics.count(\.challenges)
            return Reply.secureJSON(
                ["challenges": [realm: ["text": "Enter your user name and password"]]], status: .unauthorized,
                headers: [.wwwAuthenticate: "WL-Composite-Challenge"])
        }
        guard let name = answer["username"]?.stringValue, let password = answer["password"]?.stringValue,
              let user = user(name, password: password)
        else {
            let result: JSON = ["WL-Authentication-Failure": [realm: ["reason": "wrong user name or password"]]]
            return redirect(to: redirectURI, [("wl_result", String(decoding: result.text, as: UTF8.self))])
        }
        let now = self.now
        let code = codes.issue(AuthorizationCodes.Grant(
            clientID: clientID, redirectURI: redirectURI, scope: [], subject: .user(user), origin: .clientAccess,
            tokenExpiresAt: now.addingTimeInterval(configuration.clientAccess.tokenLifetime),
            codeExpiresAt: now.addingTimeInterval(configuration.clientAccess.codeLifetime), session: session), now: now)
        let result: JSON = ["WL-Authentication-Success": [realm: ["userIdentity": userIdentity(user)]]]
        return redirect(to: redirectURI, [("code", code), ("wl_result", String(decoding: result.text, as: UTF8.self))])
    }

    /// The realm's `userIdentity` for `user`.
    func userIdentity(_ user: String) -> JSON {
        ["id": .string(user), "displayName": .string(user), "authBy": .string(configuration.clientAccess.realm), "attributes": [:]]
    }
}
