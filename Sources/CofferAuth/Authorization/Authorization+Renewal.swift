import Foundation

extension Authorization {
    /// The `Authorization` header value for the current session, renewing an expired token
    /// when the session can (one shared token request for all concurrent callers).
    func authorizationValue() async throws(AuthError) -> String {
        if case .unloaded = state { try loadStoredSession() }
        switch state {
        case .unloaded, .signedOut(otherBackend: false):
            throw .notAuthenticated
        case .signedOut(otherBackend: true):
            throw .backendMismatch
        case .session(let session):
            if session.isUsable(at: now, leeway: leeway) { return try headerValue(session) }
            guard session.isRenewable, let credentials = session.basicCredentials else { throw .tokenExpired }
            return try await renew(.password(credentials, scope: backend.scope))
        case .anonymous(let token):
            if let token, token.isValid(at: now, leeway: leeway) { return token.headerValue }
            if token == nil, let key = backend.anonymousKey { return "Basic \(key)" }
            return try await renew(.clientCredentials(scope: backend.scope))
        }
    }

    func headerValue(_ session: StoredSession) throws(AuthError) -> String {
        if let token = session.token { return token.headerValue }
        guard let credentials = session.basicCredentials else { throw .notAuthenticated }
        return credentials.headerValue
    }

    /// Joins the running token request, or starts one with `grant`.
    private func renew(_ grant: OAuthGrant) async throws(AuthError) -> String {
        let started = epoch
        return try await renewal.run { [self] in
            await requestToken(grant, startedAt: started)
        }
    }

    private func requestToken(_ grant: OAuthGrant, startedAt started: UInt64) async -> Result<String, AuthError> {
        guard let client = backend.oauthClient else { return .failure(.notAuthenticated) }
        configuration.logger.debug("renewing the token")
        do {
            let reply = try await grant.send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
            return .success(try applyRenewal(reply, startedAt: started))
        } catch {
            return .failure(error)
        }
    }

    /// Persists the renewed token, then makes it current. When the session changed meanwhile
    /// (a login or logout), the token is dropped and the current session answers instead.
    private func applyRenewal(_ reply: TokenReply, startedAt started: UInt64) throws(AuthError) -> String {
        guard epoch == started else {
            guard case .session(let session) = state, session.isUsable(at: now, leeway: leeway) else {
                throw .notAuthenticated
            }
            return try headerValue(session)
        }
        let token = reply.accessToken(now: now, defaultLifetime: configuration.tokenExchangeTimeout)
        switch state {
        case .session(var session):
            session.token = token
            try store.save(session)
            state = .session(session)
        case .anonymous:
            state = .anonymous(token)
        case .unloaded, .signedOut:
            throw .notAuthenticated
        }
        epoch += 1
        return token.headerValue
    }

    /// Forgets `token` if it is still current, after the backend refused it, so the next
    /// request renews it.
    func discardRefusedToken(_ headerValue: String) {
        switch state {
        case .session(var session) where session.isRenewable && session.token?.headerValue == headerValue:
            session.token = nil
            state = .session(session)
        case .anonymous(let token?) where token.headerValue == headerValue:
            state = .anonymous(AccessToken(value: token.value, issuedAt: token.issuedAt, expiresAt: token.issuedAt))
        default:
            break
        }
    }
}
