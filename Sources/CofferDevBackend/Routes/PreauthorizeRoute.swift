import CofferAuth
import Hummingbird

extension DevBackendState {
    /// MobileFirst's `POST /{runtime}/api/preauth/v1/preauthorize` (JSON `{client_id, scope,
    /// challengeResponse}`): 200 successes, 401 challenges or 403 failures. And
    /// `POST /{runtime}/api/preauth/v1/logout` (JSON `{client_id, security_check}`): ends the
    /// check for the client and revokes the tokens that depend on it.
    func addPreauthorizeRoutes<Context: RequestContext>(to router: Router<Context>) {
        let mobileFirst = configuration.mobileFirst
        router.post(RouterPath(DevBackendPath.mobileFirst(MobileFirstPath.preauthorize, mobileFirst))) { request, _ -> Response in
            self.statistics.count(\.preauthorizations)
            let body: [String: JSONValue]
            do { body = try await JSONBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let clientID = body["client_id"]?.stringValue else { return Reply.oauthError("invalid_request", "client_id is missing") }
            guard let checks = self.securityChecks(inScope: body["scope"]?.stringValue) else {
                return Reply.oauthError("invalid_scope", "the scope names an unknown security check")
            }
            let answers = body["challengeResponse"]?.objectValue ?? [:]
            guard let decision = self.decide(checks, for: clientID, answers: answers) else { return Reply.unknownClient() }
            return decision.reply(challengeScheme: MobileFirstPath.challengeScheme, statistics: self.statistics)
        }
        router.post(RouterPath(DevBackendPath.mobileFirst(MobileFirstPath.logout, mobileFirst))) { request, _ -> Response in
            let body: [String: JSONValue]
            do { body = try await JSONBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let clientID = body["client_id"]?.stringValue, let check = body["security_check"]?.stringValue else {
                return Reply.oauthError("invalid_request", "client_id and security_check are required")
            }
            guard self.clients.withChecks(of: clientID, { $0[check] = nil }) != nil else { return Reply.unknownClient() }
            self.tokens.revokeAll(of: clientID, scopeContaining: check)
            self.statistics.count(\.checkLogouts)
            return Reply.json([:])
        }
    }
}
