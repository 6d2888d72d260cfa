import Foundation

extension Authorization {
    /// The `Authorization` header value for the current session, renewing an expired token
    /// when the session can (one shared token request for all concurrent callers).
    func authorizationValue() async throws(AuthError) -> String {
        if let broker, !state.isAnonymous { return try await brokeredAccessToken(from: broker).headerValue }
        if case .unloaded = state { try loadStoredSession() }
        switch state {
        case .unloaded, .signedOut(otherBackend: false):
            throw .notAuthenticated
        case .signedOut(otherBackend: true):
            throw .backendMismatch
        case .session(let session):
            if session.isUsable(at: now, leeway: leeway) { return try headerValue(session) }
            guard session.isRenewable else { throw .tokenExpired }
            let started = epoch
            return try await renewal.run { [self] in
                await RefreshLock.run(name: sessionLockName, folder: configuration.lockFolder, timeout: configuration.refreshLockTimeout) {
                    () async throws(AuthError) -> String in try await renewSession(startedAt: started)
                }
            }
        case .anonymous(let token):
            if let token, token.isValid(at: now, leeway: leeway) { return token.headerValue }
            if token == nil, let key = backend.anonymousKey { return "Basic \(key)" }
            let started = epoch
            return try await renewal.run { [self] in await renewAnonymous(startedAt: started) }
        }
    }

    /// The lock every writer of the stored session holds: a renewal, a login, a logout.
    var sessionLockName: String { Self.sessionLockName(binding: backend.binding, account: sessions.account) }

    /// The session lock's name for the session of the backend `binding` stored under `account`
    /// (the agent's broker takes it too).
    static func sessionLockName(binding: BackendBinding, account: String) -> String {
        "omc \(binding) \(account)"
    }

    /// Runs `body`, a write of the stored session, holding the session lock
    /// (``RefreshLock/writing(name:folder:timeout:isolation:_:)``).
    func writingSession<Value>(_ body: () throws(AuthError) -> Value) async throws(AuthError) -> Value {
        try await RefreshLock.writing(name: sessionLockName, folder: configuration.lockFolder, timeout: configuration.refreshLockTimeout, body)
    }

    func headerValue(_ session: StoredSession) throws(AuthError) -> String {
        if let token = session.token { return token.headerValue }
        guard let credentials = session.basicCredentials else { throw .notAuthenticated }
        return credentials.headerValue
    }

    /// Renews with the refresh token (or, for an older session or by opt-in, the password), and
    /// stores the new token, and a rotated refresh token, before anyone uses them. A refresh
    /// token held replaces any stored password. Runs under the cross-process refresh lock:
    /// another process may have renewed the session while this one waited, and a refresh token
    /// must never be spent twice.
    private func renewSession(startedAt started: UInt64) async throws(AuthError) -> String {
        guard let client = backend.oauthClient else { throw .notAuthenticated }
        guard var session = try sessions.load(), session.binding == backend.binding, !session.isSignedOut else {
            throw .notAuthenticated
        }
        if session.isUsable(at: now, leeway: leeway), let value = try? headerValue(session), value != refusedHeaderValue {
            state = .session(session)
            return value  // another process renewed it while this one waited for the lock
        }
        let reply: TokenReply
        if let refreshToken = session.refreshToken {
            configuration.logger.debug("refreshing the token")
            do {
                reply = try await OAuthGrant.refreshToken(refreshToken, scope: nil)
                    .send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
            } catch let error where error.refusesRefreshToken {
                throw try endSession()
            }
        } else if let credentials = session.basicCredentials {
            configuration.logger.debug("renewing the token with the stored password")
            reply = try await OAuthGrant.password(credentials, scope: backend.scope)
                .send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
        } else {
            throw .tokenExpired
        }
        guard epoch == started else { throw .cancelled }
        let token = reply.accessToken(now: now, defaultLifetime: defaultTokenLifetime)
        session.token = token
        if let rotated = reply.refreshToken {
            session.refreshToken = rotated
            session.password = nil
        }
        session.format = 2
        try sessions.save(session)
        // The same login, renewed: not a change that a login or logout under way gives way to.
        state = .session(session)
        broadcaster.send(.refreshed)
        return token.headerValue
    }

    /// The backend refused the refresh token: the session is cleared, and the user must log in again.
    private func endSession() throws(AuthError) -> AuthError {
        try sessions.remove()
        state = .signedOut(otherBackend: false)
        epoch += 1
        broadcaster.send(.reauthenticationRequired)
        configuration.logger.info("the backend refused the refresh token; log in again")
        return .reauthenticationRequired
    }

    /// A new anonymous token (client credentials), kept in memory only.
    private func renewAnonymous(startedAt started: UInt64) async -> Result<String, AuthError> {
        guard let client = backend.oauthClient else { return .failure(.notAuthenticated) }
        do throws(AuthError) {
            let reply = try await OAuthGrant.clientCredentials(scope: backend.scope)
                .send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
            guard epoch == started, case .anonymous = state else { throw .notAuthenticated }
            let token = reply.accessToken(now: now, defaultLifetime: defaultTokenLifetime)
            state = .anonymous(token)
            epoch += 1
            return .success(token.headerValue)
        } catch {
            return .failure(error)
        }
    }

    /// Forgets `token` if it is still current, after the backend refused it, so the next
    /// request renews it.
    func discardRefusedToken(_ headerValue: String) {
        refusedHeaderValue = headerValue
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
