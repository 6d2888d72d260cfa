import Foundation
import Hummingbird

extension DevBackendState {
    /// RFC 8628 for the OpenID clients:
    /// - `POST /oidc/device` (§3.1–3.2): `device_code`, `user_code`, `verification_uri`,
    ///   `verification_uri_complete`, `expires_in`, `interval`;
    /// - `GET /oidc/device/verify[?user_code=…]`: the page where a person enters the code and
    ///   signs in; `POST /oidc/device/verify` is its form (Allow or Deny);
    /// - `POST /oidc/device/approve` (`user_code`, `user`, optional `deny=1`): approves or denies
    ///   without a password, for tests; served only when
    ///   ``OpenIDProviderConfiguration/deviceApprovalEndpoint`` is on.
    func addDeviceAuthorizationRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.OpenID.device)) { request, _ -> Response in
            self.statistics.count(\.deviceAuthorizations)
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let client = self.authenticateClient(Caller(request), form: form, oauthClients: false) else {
                return Reply.oauthError("invalid_client", "client authentication failed")
            }
            let scope = ScopeList.parse(form["scope"] ?? "openid")
            guard !scope.isEmpty, scope.allSatisfy(self.configuration.openID.scopes.contains) else {
                return Reply.oauthError("invalid_scope", "the scope is unknown")
            }
            guard let base = self.baseURL?.absoluteString else { return Reply.json(["error": "not_listening"], status: .serviceUnavailable) }
            let openID = self.configuration.openID
            let grant = self.deviceGrants.start(
                clientID: client.id, scope: scope, now: self.now, lifetime: openID.deviceCodeLifetime, interval: openID.deviceInterval)
            let verification = base + DevBackendPath.OpenID.deviceVerify
            return Reply.json([
                "device_code": .string(grant.deviceCode), "user_code": .string(grant.userCode),
                "verification_uri": .string(verification),
                "verification_uri_complete": .string(verification + "?" + URLForm.encode([("user_code", grant.userCode)])),
                "expires_in": .number(openID.deviceCodeLifetime.rounded()), "interval": .number(Double(openID.deviceInterval)),
            ])
        }
        router.get(RouterPath(DevBackendPath.OpenID.deviceVerify)) { request, _ -> Response in
            LoginForms.device(userCode: self.query(request)["user_code"])
        }
        router.post(RouterPath(DevBackendPath.OpenID.deviceVerify)) { request, _ -> Response in
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return LoginForms.device(userCode: nil, message: refusal.description, status: .badRequest)
            }
            let userCode = form["user_code"] ?? ""
            guard self.deviceGrants.pending(userCode: userCode, at: self.now) != nil else {
                return LoginForms.device(userCode: userCode, message: "This code is unknown, expired or already used.", status: .badRequest)
            }
            let user: String?
            switch form["action"] {
            case "deny": user = nil
            case "allow":
                guard let name = form["username"], let password = form.values["password"],
                      let known = self.user(name, password: password)
                else { return LoginForms.device(userCode: userCode, message: "Wrong user name or password.", status: .unauthorized) }
                user = known
            default: return LoginForms.device(userCode: userCode, message: "Choose Allow or Deny.", status: .badRequest)
            }
            guard self.deviceGrants.decide(userCode: userCode, user: user, at: self.now) == .decided else {
                return LoginForms.device(userCode: userCode, message: "This code is unknown, expired or already used.", status: .badRequest)
            }
            let text = user == nil ? "The device was denied." : "The device is signed in. You can close this page."
            return HTMLPage.response(title: "Coffer dev backend: device login", body: HTMLPage.message(text, error: false))
        }
        guard configuration.openID.deviceApprovalEndpoint else { return }
        router.post(RouterPath(DevBackendPath.OpenID.deviceApprove)) { request, _ -> Response in
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let userCode = form["user_code"] else { return Reply.oauthError("invalid_request", "user_code is missing") }
            let deny = form["deny"] == "1"
            let user = form["user"]
            guard deny || user.map({ self.configuration.users[$0] != nil }) == true else {
                return Reply.oauthError("invalid_request", "user must name a configured user")
            }
            return Self.approvalReply(self.deviceGrants.decide(userCode: userCode, user: deny ? nil : user, at: self.now), denied: deny)
        }
    }

    /// The test approval endpoint's reply.
    private static func approvalReply(_ outcome: DeviceGrants.DecisionOutcome, denied: Bool) -> Response {
        switch outcome {
        case .decided: Reply.json(["result": denied ? "denied" : "approved"])
        case .unknown: Reply.json(["error": "unknown_user_code"], status: .notFound)
        case .expired: Reply.json(["error": "expired_user_code"], status: .badRequest)
        case .alreadyDecided: Reply.json(["error": "already_decided"], status: .conflict)
        }
    }
}
