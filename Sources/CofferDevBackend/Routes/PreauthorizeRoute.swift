import Hummingbird

extension DevBackendState {
    /// MobileFirst's `POST /{runtime}/api/preauth/v1/preauthorize` (JSON `{client_id, scope,
    /// challengeResponse}`): 200 successes (with `clockSynchronization`), 401 challenges or 403
    /// failures; an unknown client is 400 `INVALID_CLIENT_ID`. And `POST
    /// /{runtime}/api/preauth/v1/logout` (form `security_check` and a client assertion): ends the
    /// check for the client and revokes the tokens that depend on it.
    func addPreauthorizeRoutes<Context: RequestContext>(to router: Router<Context>) {
        let mobileFirst = configuration.mobileFirst
        router.post(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.preauthorize, mobileFirst))) { request, _ -> Response in
            self.statistics.count(\.preauthorizations)
            let body: [String: JSON]
            do { body = try await JSONBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let clientID = body["client_id"]?.stringValue else { return Reply.oauthError("invalid_request", "client_id is missing") }
            guard let checks = self.securityChecks(inScope: body["scope"]?.stringValue) else {
                return Reply.oauthError("invalid_scope", "the scope names an unknown security check")
            }
            guard self.clients.contains(clientID, of: .mobileFirst) else { return Reply.unknownClient() }
            let answers = body["challengeResponse"]?.objectValue ?? [:]
            guard let decision = self.decide(checks, for: clientID, answers: answers) else { return Reply.unknownClient() }
            return decision.reply(statistics: self.statistics, serverTime: self.now)
        }
        router.post(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.logout, mobileFirst))) { request, _ -> Response in
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            let clientID: String
            switch self.verifyAssertion(form, code: nil) {
            case .valid(let id): clientID = id
            case .unknownClient: return Reply.unknownClient()
            case .refused(let reason):
                self.statistics.count(\.refusedSignatures)
                return Reply.refusedSignature(reason)
            }
            guard let check = form["security_check"] else { return Reply.oauthError("invalid_request", "security_check is required") }
            guard self.clients.withChecks(of: clientID, { $0[check] = nil }) != nil else { return Reply.unknownClient() }
            self.tokens.revokeAll(of: clientID, scopeContaining: check)
            self.statistics.count(\.checkLogouts)
            return Reply.json([:])
        }
    }
}
