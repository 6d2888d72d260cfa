import Coffer
import Foundation

/// The token broker, from both ends (docs/agent.md, "The token broker"): a facade made with an
/// ``AgentTokenBroker`` asks the agent for its tokens; in the agent, a facade on the vault hands
/// them out.
extension Authorization: BrokeredClient {
    // MARK: A client of the broker

    /// Hands a new OAuth login to the agent, unless a logout or another login came first.
    func hand(_ session: StoredSession, to broker: AgentTokenBroker, startedAt started: UInt64) async throws(AuthError) {
        guard epoch == started else { throw .cancelled }
        try await broker.keep(try BrokeredBackendLogin(backend: backend, session: session, allowed: broker.allowed).encoded(), profile: profile)
        brokered = session.token.map { BrokeredToken($0, scope: backend.scope, apiOrigins: []) }
    }

    /// An access token from the agent, which refreshes it when needed; a token a resource
    /// refused (``send(_:)-(HTTPClientRequest)``) is named so that the agent does not hand it out again.
    func brokeredAccessToken(from broker: AgentTokenBroker) async throws(AuthError) -> AccessToken {
        let refused = brokered.flatMap { $0.accessToken.headerValue == refusedHeaderValue ? $0.value : nil }
        do {
            let token = try await broker.token(profile: profile, refused: refused, after: brokered, events: broadcaster)
            brokered = token
            return token.accessToken
        } catch {
            if case .reauthenticationRequired = error {
                // The agent ended the login: this process forgets it too.
                state = .signedOut(otherBackend: false)
                brokered = nil
                epoch += 1
            }
            throw error
        }
    }

    /// Ends the login in the agent, which revokes its tokens where the backend has a revocation
    /// endpoint, and forgets what this process held.
    func brokeredLogout(from broker: AgentTokenBroker) async throws(AuthError) -> LogoutReport {
        epoch += 1
        state = .signedOut(otherBackend: false)
        brokered = nil
        await renewal.fail(with: .notAuthenticated)
        try sessions.remove()
        let removed = try await broker.end(profile: profile)
        if removed { broadcaster.send(.loggedOut) }
        return LogoutReport(revoked: removed && backend.revocationEndpoint != nil, removedStoredSession: removed)
    }

    /// Why a facade with a broker refuses a login other than the OAuth password grant.
    static let brokersOAuthOnly = AuthError.invalidRequest(reason: "the agent holds a mobile backend's OAuth logins only")

    // MARK: The broker, in the agent

    /// Whether ``brokeredToken(refusing:)`` would answer without the network.
    package func freshToken() -> BrokeredToken? {
        if case .unloaded = state { _ = try? loadStoredSession() }
        guard case .session(let session) = state, session.isUsable(at: now, leeway: leeway), let token = session.token,
              token.headerValue != refusedHeaderValue
        else { return nil }
        return brokered(token)
    }

    /// A valid access token for a program that asked the agent: ``accessToken()``, which renews
    /// with the refresh token once for every concurrent caller and stores the rotated refresh
    /// token before it returns. `refused`, when it is the current token, is never handed out again.
    package func brokeredToken(refusing refused: String?) async throws(AuthError) -> BrokeredToken {
        if case .unloaded = state { try loadStoredSession() }
        if let refused, let current = state.token, current.value == refused { discardRefusedToken(current.headerValue) }
        return brokered(try await accessToken())
    }

    /// `token` as the agent hands it out: the backend's scope, and its origin alone.
    private func brokered(_ token: AccessToken) -> BrokeredToken {
        BrokeredToken(token, scope: backend.scope, apiOrigins: OpenIDClient.origin(of: backend.baseURL).map { [$0] } ?? [])
    }
}

extension Authorization {
    /// Whether the agent's token broker holds this facade's login (``AgentTokenBroker``).
    public nonisolated var isBrokered: Bool { broker != nil }

    /// The status with a broker: the token it last handed out; the agent holds the refresh
    /// token, so the login renews without the user.
    var brokeredStatus: SessionStatus {
        guard let token = brokered else { return SessionStatus() }
        var userName: String?
        if case .session(let session) = state { userName = session.userName }
        return SessionStatus(
            isAuthorized: token.accessToken.isValid(at: now, leeway: leeway), isRenewable: true, method: .oauth, userName: userName,
            tokenExpiresAt: token.expiresAt, backend: backend.binding)
    }
}
