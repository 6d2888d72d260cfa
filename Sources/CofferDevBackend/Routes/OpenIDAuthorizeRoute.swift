import Foundation
import Hummingbird

extension DevBackendState {
    /// `GET /oidc/authorize`: checks the request (``AuthorizationRequest``), then redirects at
    /// once with a code when ``OpenIDProviderConfiguration/autoApproveUser`` is set, or shows
    /// the login form. `POST /oidc/authorize` is that form: Allow with the right password
    /// redirects with a code, Deny with `error=access_denied`, a wrong password shows the form
    /// again (401). Every redirect carries `state` and RFC 9207's `iss`; `prompt=none` without
    /// auto-approval gets `login_required`.
    func addOpenIDAuthorizeRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.OpenID.authorize)) { request, _ -> Response in
            self.statistics.count(\.openIDAuthorizations)
            guard let pairs = URLForm.pairs(request.uri.query ?? "") else {
                return HTMLPage.response(title: "Bad request", body: HTMLPage.message("The query is malformed."), status: .badRequest)
            }
            let parsed: AuthorizationRequest
            switch AuthorizationRequest.parse(pairs, configuration: self.configuration.openID) {
            case .success(let request): parsed = request
            case .failure(let refusal): return self.reply(to: refusal)
            }
            if let user = self.configuration.openID.autoApproveUser { return self.approve(parsed, as: user) }
            if parsed.prompt.contains("none") {
                return self.authorizationRedirect(parsed.redirectURI, state: parsed.state, [("error", "login_required")])
            }
            return LoginForms.authorization(parsed)
        }
        router.post(RouterPath(DevBackendPath.OpenID.authorize)) { request, _ -> Response in
            self.statistics.count(\.openIDAuthorizations)
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return HTMLPage.response(title: "Bad request", body: HTMLPage.message(refusal.description), status: .badRequest)
            }
            let parsed: AuthorizationRequest
            switch AuthorizationRequest.parse(form.values.map { ($0.key, $0.value) }, configuration: self.configuration.openID) {
            case .success(let request): parsed = request
            case .failure(let refusal): return self.reply(to: refusal)
            }
            switch form["action"] {
            case "deny":
                return self.authorizationRedirect(parsed.redirectURI, state: parsed.state, [("error", "access_denied")])
            case "allow":
                guard let name = form["username"], let password = form.values["password"],
                      let user = self.user(name, password: password)
                else { return LoginForms.authorization(parsed, error: "Wrong user name or password.", status: .unauthorized) }
                return self.approve(parsed, as: user)
            default:
                return LoginForms.authorization(parsed, error: "Choose Allow or Deny.", status: .badRequest)
            }
        }
    }

    /// Redirects to the client with a new code for `user`.
    private func approve(_ request: AuthorizationRequest, as user: String) -> Response {
        let now = self.now
        let code = openIDCodes.issue(OpenIDCodes.Grant(
            clientID: request.client.id, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge, nonce: request.nonce,
            scope: request.scope, user: user, authTime: now, expiresAt: now.addingTimeInterval(configuration.openID.codeLifetime)), now: now)
        return authorizationRedirect(request.redirectURI, state: request.state, [("code", code)])
    }

    private func reply(to refusal: AuthorizationRequest.Refusal) -> Response {
        switch refusal {
        case .page(let message):
            return HTMLPage.response(title: "Bad authorization request", body: HTMLPage.message(message), status: .badRequest)
        case .redirect(let redirectURI, let state, let error, let description):
            return authorizationRedirect(redirectURI, state: state, [("error", error), ("error_description", description)])
        }
    }

    /// 302 to the client's `redirectURI` with `parameters`, `state` and `iss` (RFC 9207 §2; a
    /// wrong one when ``OpenIDFault/redirectWrongIssuer`` is armed).
    func authorizationRedirect(_ redirectURI: String, state: String?, _ parameters: [(String, String)]) -> Response {
        var parameters = parameters
        if let state { parameters.append(("state", state)) }
        if var issuer {
            if openIDFaults.take(.redirect) != nil { issuer += "-evil" }
            parameters.append(("iss", issuer))
        }
        var response = redirect(to: redirectURI, parameters)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
