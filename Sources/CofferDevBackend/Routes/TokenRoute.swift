import CofferAuth
import Foundation
import Hummingbird

extension DevBackendState {
    /// `POST /oauth2/v1/token`: the password, client-credentials and RFC 8693 token-exchange
    /// grants, with the client authenticated by HTTP Basic (RFC 6749 §2.3.1).
    func addTokenRoute<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.token)) { request, _ -> Response in
            self.statistics.count(\.tokenRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller, optional: true) else { return Reply.oauthError("invalid_request", "unknown backend id") }
            guard let clientID = caller.client(among: self.configuration.clients) else {
                return Reply.oauthError("invalid_client", "client authentication failed")
            }
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            switch form["grant_type"] {
            case "password": return self.passwordGrant(form, clientID: clientID)
            case "client_credentials": return self.issue(.client(clientID), origin: .clientCredentials, clientID: clientID)
            case TokenExchangeForm.grantType: return self.tokenExchangeGrant(form, clientID: clientID)
            case nil: return Reply.oauthError("invalid_request", "grant_type is missing")
            default: return Reply.oauthError("unsupported_grant_type", "this grant type is not supported")
            }
        }
    }

    private func passwordGrant(_ form: FormBody, clientID: String) -> Response {
        guard let name = form["username"], let password = form.values["password"] else {
            return Reply.oauthError("invalid_request", "username and password are required")
        }
        guard let user = user(BasicCredentials(user: name, password: password)) else {
            return Reply.oauthError("invalid_grant", "the user name or password is wrong")
        }
        return issue(.user(user), origin: .oauth, clientID: clientID)
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
        lifetime: TimeInterval? = nil, extra: [String: JSONValue] = [:]
    ) -> Response {
        let lifetime = lifetime ?? configuration.tokenLifetime
        let value = tokens.issue(subject, origin: origin, clientID: clientID, expiresAt: now.addingTimeInterval(lifetime))
        return Reply.token(value, lifetime: lifetime, advertised: configuration.advertisesLifetime, extra: extra)
    }
}
