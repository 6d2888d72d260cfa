import Foundation
import Hummingbird

extension DevBackendState {
    /// `POST /oauth2/v1/token`, the one token endpoint: for the OAuth clients (HTTP Basic) the
    /// password, client-credentials and RFC 8693 token-exchange grants; for the OpenID clients
    /// the authorization code (with PKCE) and RFC 8628 device-code grants; for both, refresh
    /// tokens (rotated, with reuse detection). A client asking for another client kind's grant
    /// gets `unsupported_grant_type`.
    func addTokenRoute<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.token)) { request, _ -> Response in
            self.statistics.count(\.tokenRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller, optional: true) else { return Reply.oauthError("invalid_request", "unknown backend id") }
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard let client = self.authenticateClient(caller, form: form) else {
                return Reply.oauthError("invalid_client", "client authentication failed")
            }
            switch (form["grant_type"], client) {
            case ("password", .oauth(let id)): return self.passwordGrant(form, clientID: id)
            case ("client_credentials", .oauth(let id)): return self.issue(.client(id), origin: .clientCredentials, clientID: id)
            case (TokenExchangeGrant.grantType, .oauth(let id)): return self.tokenExchangeGrant(form, clientID: id)
            case ("refresh_token", _): return await self.refreshGrant(form, clientID: client.id)
            case ("authorization_code", .openID(let registration)): return await self.authorizationCodeGrant(form, clientID: registration.id)
            case (DeviceCodeGrant.grantType, .openID(let registration)): return await self.deviceCodeGrant(form, clientID: registration.id)
            case (nil, _): return Reply.oauthError("invalid_request", "grant_type is missing")
            default: return Reply.oauthError("unsupported_grant_type", "this grant type is not supported for this client")
            }
        }
    }

    /// The password grant; the reply carries a refresh token, which starts a family.
    private func passwordGrant(_ form: FormBody, clientID: String) -> Response {
        guard let name = form["username"], let password = form.values["password"] else {
            return Reply.oauthError("invalid_request", "username and password are required")
        }
        guard let user = user(name, password: password) else {
            return Reply.oauthError("invalid_grant", "the user name or password is wrong")
        }
        guard configuration.passwordGrantIssuesRefreshTokens else { return issue(.user(user), origin: .oauth, clientID: clientID) }
        let now = self.now
        let family = refreshTokens.start(
            clientID: clientID, subject: .user(user), origin: .oauth, scope: [], authTime: now,
            expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime))
        return issue(.user(user), origin: .oauth, clientID: clientID, family: family.familyID, extra: ["refresh_token": .string(family.token)])
    }

    /// Issues a token and replies with it.
    func issue(
        _ subject: IssuedToken.Subject, origin: IssuedToken.Origin, clientID: String?,
        lifetime: TimeInterval? = nil, family: String? = nil, extra: [String: JSON] = [:]
    ) -> Response {
        let lifetime = lifetime ?? configuration.tokenLifetime
        let value = tokens.issue(subject, origin: origin, clientID: clientID, expiresAt: now.addingTimeInterval(lifetime), family: family)
        return Reply.token(value, lifetime: lifetime, advertised: configuration.advertisesLifetime, extra: extra)
    }
}
