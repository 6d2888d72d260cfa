import CofferAuth
import Foundation
import Hummingbird

extension DevBackendState {
    /// The token endpoints of the code flow (`POST /{runtime}/api/az/v1/token`, and the MCA
    /// server's `…/token`): `grant_type=authorization_code&code&redirect_uri`, the registered
    /// client authenticated by HTTP Basic; RFC 6749 §5.1 and §5.2 replies, with `scope`.
    func addCodeTokenRoutes<Context: RequestContext>(to router: Router<Context>) {
        let paths = [
            DevBackendPath.mobileFirst(MobileFirstPath.token, configuration.mobileFirst),
            DevBackendPath.clientAccess(ClientAccessPath.token, configuration.clientAccess),
        ]
        for path in paths {
            router.post(RouterPath(path)) { request, _ -> Response in
                self.statistics.count(\.codeExchanges)
                guard let clientID = Caller(request).client(secretOf: self.clients.secret(of:)) else {
                    return Reply.oauthError("invalid_client", "client authentication failed")
                }
                let form: FormBody
                do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                    return Reply.oauthError("invalid_request", refusal.description)
                }
                guard form["grant_type"] == "authorization_code" else {
                    return Reply.oauthError("unsupported_grant_type", "only authorization_code is supported here")
                }
                let now = self.now
                guard let code = form["code"], let grant = self.codes.redeem(code, clientID: clientID, redirectURI: form["redirect_uri"], at: now),
                      grant.tokenExpiresAt > now
                else { return Reply.oauthError("invalid_grant", "the code is unknown, used, expired or not this client's") }
                let lifetime = grant.tokenExpiresAt.timeIntervalSince(now)
                let value = self.tokens.issue(grant.subject, origin: grant.origin, clientID: clientID, expiresAt: grant.tokenExpiresAt, scope: grant.scope)
                return Reply.token(value, lifetime: lifetime, advertised: self.configuration.advertisesLifetime,
                                   extra: ["scope": .string(grant.scope.sorted().joined(separator: " "))])
            }
        }
    }
}
