import CofferAuth
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
            case (TokenExchangeForm.grantType, .oauth(let id)): return self.tokenExchangeGrant(form, clientID: id)
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
        guard let user = user(BasicCredentials(user: name, password: password)) else {
            return Reply.oauthError("invalid_grant", "the user name or password is wrong")
        }
        guard configuration.passwordGrantIssuesRefreshTokens else { return issue(.user(user), origin: .oauth, clientID: clientID) }
        let now = self.now
        let family = refreshTokens.start(
            clientID: clientID, subject: .user(user), origin: .oauth, scope: [], authTime: now,
            expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime))
        return issue(.user(user), origin: .oauth, clientID: clientID, family: family.familyID, extra: ["refresh_token": .string(family.token)])
    }

    /// RFC 8693 §2.1: the subject token must be one of the accepted third-party tokens.
    private func tokenExchangeGrant(_ form: FormBody, clientID: String) -> Response {
        guard let subjectToken = form["subject_token"], let type = form["subject_token_type"] else {
            return Reply.oauthError("invalid_request", "subject_token and subject_token_type are required")
        }
        guard [TokenExchangeForm.accessTokenType, "urn:ietf:params:oauth:token-type:jwt"].contains(type) else {
            return Reply.oauthError("invalid_request", "unsupported subject_token_type")
        }
        guard let user = configuration.ssoTokens[subjectToken] else {
            return Reply.oauthError("invalid_grant", "the subject token is not valid")
        }
        return issue(.user(user), origin: .sso, clientID: clientID, lifetime: configuration.exchangeTokenLifetime,
                     extra: ["issued_token_type": .string(TokenExchangeForm.accessTokenType)])
    }

    /// Issues a token and replies with it.
    func issue(
        _ subject: IssuedToken.Subject, origin: IssuedToken.Origin, clientID: String?,
        lifetime: TimeInterval? = nil, family: String? = nil, extra: [String: JSONValue] = [:]
    ) -> Response {
        let lifetime = lifetime ?? configuration.tokenLifetime
        let value = tokens.issue(subject, origin: origin, clientID: clientID, expiresAt: now.addingTimeInterval(lifetime), family: family)
        return Reply.token(value, lifetime: lifetime, advertised: configuration.advertisesLifetime, extra: extra)
    }
}
