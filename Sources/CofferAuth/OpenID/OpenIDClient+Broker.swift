import AsyncHTTPClient
import Coffer
import Foundation

/// The token broker, from both ends (docs/agent.md, "The token broker"): a client made with an
/// ``AgentTokenBroker`` asks the agent for its tokens; in the agent, a client on the vault hands
/// them out.
extension OpenIDClient: BrokeredClient {
    // MARK: A client of the broker

    /// Hands a new login to the agent; this process keeps the session without its refresh token.
    func hand(_ session: OpenIDSession, to broker: AgentTokenBroker) async throws(AuthError) {
        let settings = BrokeredLogin.Settings(provider: provider, clientID: clientID, clientSecret: credentials.secret)
        try await broker.keep(try BrokeredLogin(settings: settings, session: session, allowed: broker.allowed).encoded(), profile: profile)
        var held = session
        held.refreshToken = nil
        cached = .some(held)
        brokered = nil
    }

    /// An access token from the agent, which refreshes it when needed; a token a resource
    /// refused (``send(_:)-(HTTPClientRequest)``) is named so that the agent does not hand it out again.
    func brokeredAccessToken(from broker: AgentTokenBroker) async throws(AuthError) -> AccessToken {
        let token: BrokeredToken
        do {
            token = try await broker.token(profile: profile, refused: refusedAccessToken, after: brokered, events: broadcaster)
        } catch .reauthenticationRequired {
            cached = .some(nil)
            brokered = nil
            epoch += 1
            throw .reauthenticationRequired
        }
        brokered = token
        return token.accessToken
    }

    /// The origins the token may be sent to, and the token: from the agent with a broker (the
    /// agent names the origins with the token), else from the session.
    func tokenForOrigin(_ origin: String, of url: String) async throws(AuthError) -> AccessToken {
        let refused = AuthError.invalidRequest(reason: "\(HTTPTransport.redactedURL(url)) is not on an API origin of this login")
        if broker != nil {
            let token = try await accessToken()
            guard brokered?.apiOrigins.contains(origin) == true else { throw refused }
            return token
        }
        guard let session = try session(), session.apiOrigins.contains(origin) else { throw refused }
        return try await accessToken()
    }

    /// The status with a broker: the token it last handed out (the refresh token is the agent's).
    var brokeredStatus: OpenIDSessionStatus {
        guard let token = brokered else { return OpenIDSessionStatus(issuer: provider.issuer, user: (try? session())??.identity) }
        let access = token.accessToken
        return OpenIDSessionStatus(
            issuer: provider.issuer, user: (try? session())??.identity, accessTokenExpiresAt: token.expiresAt,
            isAuthorized: access.isValid(at: now, leeway: configuration.leeway), apiOrigins: token.apiOrigins)
    }

    /// Ends the login in the agent, which revokes its refresh token where the provider allows.
    func brokeredLogout(from broker: AgentTokenBroker) async throws(AuthError) -> LogoutReport {
        epoch += 1
        let removed = try await broker.end(profile: profile)
        cached = .some(nil)
        brokered = nil
        if removed { broadcaster.send(.loggedOut) }
        return LogoutReport(revoked: removed && provider.revocationEndpoint != nil, removedStoredSession: removed)
    }

    // MARK: The broker, in the agent

    /// Whether ``brokeredToken(refusing:)`` would answer without the network.
    package func freshToken() -> BrokeredToken? {
        guard let session = try? session(), let token = session.accessToken,
              session.hasUsableToken(at: now, leeway: configuration.leeway), token.value != refusedAccessToken
        else { return nil }
        return BrokeredToken(token, scope: session.scope, apiOrigins: session.apiOrigins)
    }

    /// A valid access token for a program that asked the agent: ``accessToken()``, which
    /// refreshes once for every concurrent caller and stores the rotated refresh token before
    /// it returns. `refused`, when it is the current token, is never handed out again.
    package func brokeredToken(refusing refused: String?) async throws(AuthError) -> BrokeredToken {
        if let refused, let current = try session()?.accessToken, current.value == refused { discard(current) }
        let token = try await accessToken()
        let session = try session()
        return BrokeredToken(token, scope: session?.scope, apiOrigins: session?.apiOrigins ?? [])
    }
}
