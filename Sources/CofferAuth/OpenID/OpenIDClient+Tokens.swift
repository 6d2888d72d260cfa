import AsyncHTTPClient
import Foundation

extension OpenIDClient {
    /// A valid access token: the stored one, or a new one from the refresh token.
    ///
    /// Refreshing is single-flight: concurrent callers in this process share one request, and
    /// processes take turns on a lock file, each reading the stored session again once it has
    /// the lock, so one refresh token is never spent twice. A rotated refresh token is stored
    /// before the new access token is returned. When the provider refuses the refresh token
    /// (`invalid_grant`, or any 400 or 401 without an error that blames the request), the
    /// session is cleared and this throws ``AuthError/reauthenticationRequired``; a 5xx or a
    /// network failure throws its transient error (``AuthError/serverError(status:)``,
    /// ``AuthError/transport(reason:)``, ``AuthError/timeout``) and keeps the session.
    ///
    /// With a broker, the agent does all this and this process only asks it.
    public func accessToken() async throws(AuthError) -> AccessToken {
        if let broker { return try await brokeredAccessToken(from: broker) }
        guard let session = try session() else { throw .notAuthenticated }
        if session.hasUsableToken(at: now, leeway: configuration.leeway), let token = session.accessToken,
           token.value != refusedAccessToken {
            return token
        }
        let started = epoch
        return try await refreshing.run { [self] in
            await RefreshLock.run(name: sessionLockName, folder: configuration.lockFolder, timeout: configuration.refreshLockTimeout) {
                () async throws(AuthError) -> AccessToken in try await refresh(startedAt: started)
            }
        }
    }

    /// Sends `request` with the access token, only to one of the session's API origins;
    /// a token the resource refuses (401) is refreshed once and the request sent again.
    public func send(_ request: HTTPClientRequest) async throws(AuthError) -> HTTPReply {
        guard let url = URL(string: request.url), let origin = Self.origin(of: url) else { throw .invalidRequest(reason: "not a URL") }
        let token = try await tokenForOrigin(origin, of: request.url)
        let response = try await transport.send(request.authorized(with: token))
        guard response.status == 401 else { return response }
        discard(token)
        return try await transport.send(request.authorized(with: try await accessToken()))
    }

    /// Sends `request` as ``send(_:)-(HTTPClientRequest)`` does.
    public func send(_ request: ResourceRequest) async throws(AuthError) -> HTTPReply {
        try await send(request.httpRequest(token: nil))
    }

    /// Forgets `token` after a resource refused it, so the next caller refreshes (the refresh
    /// reads the stored session again, which still holds it: it is skipped there too).
    func discard(_ token: AccessToken) {
        refusedAccessToken = token.value
        guard case .some(.some(var session)) = cached, session.accessToken == token else { return }
        session.accessToken = nil
        cached = .some(session)
    }

    private func refresh(startedAt started: UInt64) async throws(AuthError) -> AccessToken {
        guard var session = try reloadSession() else { throw .notAuthenticated }
        if session.hasUsableToken(at: now, leeway: configuration.leeway), let token = session.accessToken,
           token.value != refusedAccessToken {
            return token  // another process refreshed while this one waited for the lock
        }
        if session.accessToken?.value == refusedAccessToken { session.accessToken = nil }
        cached = .some(session)
        guard let refreshToken = session.refreshToken else { throw try endSession(because: "no refresh token") }
        let reply: TokenReply
        do {
            reply = try await OAuthGrant.refreshToken(refreshToken, scope: nil)
                .send(to: provider.tokenEndpoint, client: credentials, transport: transport)
        } catch let error where error.refusesRefreshToken {
            throw try endSession(because: "the provider refused the refresh token")
        }
        guard epoch == started else { throw .cancelled }
        if let idToken = reply.idToken {
            // OpenID Connect Core §12.2: the same issuer and user; the nonce may be absent.
            do {
                session.identity = try await verifier.verify(idToken, nonce: nil, subject: session.identity?.id).identity
            } catch .untrustedResponse(let reason) {
                // The stored refresh token is spent and the reply's are not trusted: sending the
                // spent one again would look like theft to the provider.
                _ = try endSession(because: "the refreshed ID token failed verification")
                throw .untrustedResponse(reason: reason)
            } catch {
                // The ID token could not be checked now (its keys were out of reach): keep the
                // rotated refresh token for the next try, but no access token from this reply.
                if let rotated = reply.refreshToken {
                    session.refreshToken = rotated
                    session.accessToken = nil
                    try keep(session)
                }
                throw error
            }
        }
        let token = reply.accessToken(now: now, defaultLifetime: configuration.tokenLifetime(else: 3600))
        session.accessToken = token
        if let rotated = reply.refreshToken { session.refreshToken = rotated }
        if let scope = reply.scope { session.scope = scope }
        try keep(session)
        broadcaster.send(.refreshed)
        configuration.logger.debug("refreshed the access token", metadata: ["profile": "\(profile)"])
        return token
    }

    /// Clears the session the provider will no longer refresh, and reports it.
    private func endSession(because reason: String) throws(AuthError) -> AuthError {
        try location.remove(from: store)
        cached = .some(nil)
        epoch += 1
        broadcaster.send(.reauthenticationRequired)
        configuration.logger.info("the session ended; log in again", metadata: ["reason": "\(reason)", "profile": "\(profile)"])
        return .reauthenticationRequired
    }
}

extension HTTPClientRequest {
    /// The request with `Authorization: Bearer <token>`.
    func authorized(with token: AccessToken) -> HTTPClientRequest {
        var request = self
        request.headers.replaceOrAdd(name: HeaderName.authorization, value: token.headerValue)
        return request
    }
}
