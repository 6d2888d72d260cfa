import Foundation
import Hummingbird
import JWTKit

extension DevBackendState {
    /// The token endpoints of the code flow: `grant_type=authorization_code&code&redirect_uri`.
    ///
    /// - MobileFirst, `POST /{runtime}/api/az/v1/token`: the client authenticates with a client
    ///   assertion (``verifyAssertion(_:code:)``) whose `jti` is the code. The reply has
    ///   `access_token`, `token_type`, `expires_in` and `scope` (with `RegisteredClient`).
    /// - MCA, `POST …/apps/{tenant}/token` with `client_id`, `X-WL-Session` (the one the code was
    ///   issued in) and `X-WL-Authenticate`: a JWS of `{"code": <code>}` signed by the client's
    ///   registered key. The reply adds an `id_token` (``ClientAccessIDToken``).
    ///
    /// A refused signature is 401 `invalid_client`; a code that is unknown, used, expired or
    /// another client's is 400 `invalid_grant`.
    func addCodeTokenRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.token, configuration.mobileFirst))) { request, _ -> Response in
            self.statistics.count(\.codeExchanges)
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard form["grant_type"] == "authorization_code", let code = form["code"] else {
                return Reply.oauthError("unsupported_grant_type", "only authorization_code, with a code, is supported here")
            }
            let clientID: String
            switch self.verifyAssertion(form, code: code) {
            case .valid(let id): clientID = id
            case .unknownClient: return Reply.unknownClient()
            case .refused(let reason):
                self.statistics.count(\.refusedSignatures)
                return Reply.refusedSignature(reason)
            }
            let now = self.now
            guard let grant = self.codes.redeem(code, clientID: clientID, redirectURI: form["redirect_uri"], at: now), grant.tokenExpiresAt > now else {
                return Reply.oauthError("invalid_grant", "the code is unknown, used, expired or not this client's")
            }
            let value = self.tokens.issue(grant.subject, origin: grant.origin, clientID: clientID, expiresAt: grant.tokenExpiresAt, scope: grant.scope)
            return Reply.token(value, lifetime: grant.tokenExpiresAt.timeIntervalSince(now), advertised: self.configuration.advertisesLifetime,
                               extra: ["scope": .string(grant.scope.sorted().joined(separator: " "))])
        }
        router.post(RouterPath(DevBackendPath.clientAccess(DevBackendPath.ClientAccess.token, configuration.clientAccess))) { request, _ -> Response in
            self.statistics.count(\.codeExchanges)
            guard let session = Self.session(of: request) else { return Self.missingSession() }
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.oauthError("invalid_request", refusal.description)
            }
            guard form["grant_type"] == "authorization_code", let code = form["code"], let clientID = form["client_id"] else {
                return Reply.oauthError("invalid_request", "grant_type=authorization_code, code and client_id are required")
            }
            guard self.clients.contains(clientID, of: .clientAccess) else { return Reply.unknownClient() }
            if let reason = self.signedCodeRefusal(request, code: code, clientID: clientID) {
                self.statistics.count(\.refusedSignatures)
                return Reply.refusedSignature(reason)
            }
            let now = self.now
            guard let grant = self.codes.redeem(code, clientID: clientID, redirectURI: form["redirect_uri"], at: now),
                  grant.session == session, grant.tokenExpiresAt > now, case .user(let user) = grant.subject
            else { return Reply.oauthError("invalid_grant", "the code is unknown, used, expired, another client's or another session's") }
            let idToken = try await self.clientAccessIDToken(user: user, clientID: clientID, expiresAt: grant.tokenExpiresAt)
            let value = self.tokens.issue(grant.subject, origin: grant.origin, clientID: clientID, expiresAt: grant.tokenExpiresAt, idToken: idToken)
            return Reply.token(value, lifetime: grant.tokenExpiresAt.timeIntervalSince(now), advertised: self.configuration.advertisesLifetime,
                               extra: ["id_token": .string(idToken)])
        }
    }

    /// Why the request's `X-WL-Authenticate` does not prove that client `clientID` holds its key
    /// and sends `code`; `nil` when it does.
    private func signedCodeRefusal(_ request: Request, code: String, clientID: String) -> String? {
        guard let text = request.headers.first(where: { $0.name.canonicalName == "x-wl-authenticate" })?.value,
              let message = SignedMessage(compact: text)
        else { return "X-WL-Authenticate is missing or not a JWS" }
        guard let key = clients.key(of: clientID, of: .clientAccess) else { return "unknown client" }
        if let offered = message.headerKey, !RSANumbers.same(offered, key) { return "X-WL-Authenticate carries another key than the client registered" }
        guard message.isSigned(by: key) else { return "X-WL-Authenticate's signature does not verify with the client's key" }
        guard message.payload["code"]?.stringValue == code else { return "X-WL-Authenticate signs another code" }
        let until = now.addingTimeInterval(configuration.clientAccess.codeLifetime)
        guard usedAssertions.claim(signature: message.signature, until: until, now: now) else { return "X-WL-Authenticate was used before" }
        return nil
    }

    /// The ID token of an MCA token reply for `user` and client `clientID`.
    private func clientAccessIDToken(user: String, clientID: String, expiresAt: Date) async throws -> String {
        let data = clients.data(of: clientID)
        let now = Int(self.now.timeIntervalSince1970.rounded(.down))
        let payload = ClientAccessIDToken(
            iss: (baseURL?.absoluteString ?? "") + DevBackendPath.clientAccessServer, sub: clientID,
            aud: data?["applicationId"]?.stringValue ?? "", iat: now, exp: Int(expiresAt.timeIntervalSince1970.rounded(.down)),
            user: .init(id: user, authBy: configuration.clientAccess.realm, displayName: user),
            device: .init(id: data?["deviceId"]?.stringValue ?? "", platform: data?["deviceOs"]?.stringValue ?? "", model: data?["deviceModel"]?.stringValue ?? ""),
            application: .init(id: data?["applicationId"]?.stringValue ?? "", version: data?["applicationVersion"]?.stringValue ?? ""))
        return try await signingKeys.current().sign(payload)
    }
}
