import AsyncHTTPClient
import Coffer
import Foundation
import Logging

/// Logs a user in to a ``MobileBackend`` and keeps the session in a Coffer store, so the
/// user stays logged in across restarts. Modelled on Oracle Mobile Hub's `OMCAuthorization`.
///
/// ```swift
/// let auth = Authorization(backend: backend, store: vault)
/// if await !auth.loadSSOTokenExchange() {
///     try await auth.authenticate(userName: "alice", password: password)
/// }
/// let reply = try await auth.get(backend.baseURL.appendingPathComponent("protected"))
/// ```
///
/// - Every login is checked by the backend, then persisted, and only then reported as done.
/// - Concurrent callers that need a new token share one network round trip.
/// - Every failure is a typed ``AuthError``; bad replies leave the earlier session as it was.
/// - ``logout(clearCredentials:)`` clears the local session first, even when the backend is unreachable.
/// - It is an ``AuthorizationClient``: the same access token, requests, logout and events as
///   the other login clients.
public actor Authorization: AuthorizationClient {
    /// The facade's policies.
    public typealias Configuration = ClientConfiguration

    /// The backend this facade logs in to.
    public nonisolated let backend: MobileBackend
    /// Where the session is stored (service `coffer.auth`): the vault, the Secret Service, or any other store.
    public nonisolated let store: any CredentialStore
    /// The facade's policies.
    public nonisolated let configuration: Configuration

    let sessions: SessionStore<StoredSession>
    let transport: HTTPTransport
    /// Shares one token request among every caller that needs a new token.
    let renewal = SingleFlight<String>()
    /// Tells the app about logins, renewals, logouts and the end of a session.
    nonisolated let broadcaster = SessionEvents()
    var state: SessionState = .unloaded
    /// Bumped by every change of who is logged in (a login, a logout, a session loaded or ended),
    /// not by a renewal of the same login. A token request, login or logout that started before
    /// a change is not applied.
    var epoch: UInt64 = 0
    /// The `Authorization` value a resource refused: not used again, even though the stored
    /// session, read again before renewing, still holds it as unexpired.
    var refusedHeaderValue: String?
    /// The agent that holds this facade's OAuth login, when it has one (``init(backend:broker:profile:configuration:httpClient:)``).
    nonisolated let broker: AgentTokenBroker?
    /// The agent's name for the login, with a broker.
    public nonisolated let profile: String
    /// With a broker: the last access token it handed out.
    var brokered: BrokeredToken?

    /// A facade for `backend` that keeps its session in `store`.
    ///
    /// - Parameters:
    ///   - backend: The mobile backend: its URL, id and authentication.
    ///   - store: Where the session is stored.
    ///   - configuration: The facade's policies.
    ///   - httpClient: The client to send requests with. The default follows no redirects, so
    ///     credentials never go to another host.
    public init(
        backend: MobileBackend, store: any CredentialStore, configuration: Configuration = Configuration(),
        httpClient: HTTPClient = Authorization.defaultHTTPClient
    ) {
        self.init(
            backend: backend, store: store, sessionItem: .genericPassword(service: SessionStore<StoredSession>.service, account: configuration.sessionAccount ?? "session"),
            broker: nil, configuration: configuration, httpClient: httpClient)
    }

    /// A facade whose OAuth login the agent's token broker holds (docs/agent.md, "The token
    /// broker"): ``authenticate(userName:password:)`` hands the session, refresh token included,
    /// to the agent as profile `profile`; ``accessToken()``, ``send(_:)-(HTTPClientRequest)``
    /// and ``logout()`` ask the agent, which refreshes, so this process never holds the refresh
    /// token. Only the OAuth password grant logs in (the backend needs
    /// ``AuthenticationType/oauth(tokenEndpoint:clientID:clientSecret:)``); anonymous access
    /// stays in memory. An agent that is missing, does not hold the vault or refuses this
    /// program throws ``AuthError/storage(_:)``; nothing falls back to keeping the refresh token here.
    ///
    /// - Parameters:
    ///   - backend: The mobile backend: its URL, id and OAuth client.
    ///   - broker: The agent that holds the login (``AgentTokenBroker/login(environment:)``).
    ///   - profile: The agent's name for the login: 1 to 64 letters, digits, `.`, `_` or `-`,
    ///     shared with the OpenID logins it holds.
    ///   - configuration: The facade's policies.
    ///   - httpClient: The client to send requests with; it must not follow redirects (the
    ///     default does not).
    public init(
        backend: MobileBackend, broker: AgentTokenBroker, profile: String = "default", configuration: Configuration = Configuration(),
        httpClient: HTTPClient = Authorization.defaultHTTPClient
    ) {
        self.init(
            backend: backend, store: InMemoryStore(now: configuration.now),
            sessionItem: .genericPassword(service: SessionStore<StoredSession>.service, account: "session"),
            broker: (broker, profile), configuration: configuration, httpClient: httpClient)
    }

    /// The agent's facade for a login it holds, its session in `sessionItem` of the held vault.
    package init(backend: MobileBackend, store: any CredentialStore, sessionItem: ItemID, configuration: Configuration) {
        self.init(backend: backend, store: store, sessionItem: sessionItem, broker: nil, configuration: configuration, httpClient: Self.defaultHTTPClient)
    }

    private init(
        backend: MobileBackend, store: any CredentialStore, sessionItem: ItemID, broker: (AgentTokenBroker, profile: String)?,
        configuration: Configuration, httpClient: HTTPClient
    ) {
        self.backend = backend
        self.store = store
        self.configuration = configuration
        self.sessions = SessionStore(
            keychain: Keychain(service: sessionItem.service, store: store), account: sessionItem.account,
            label: "Coffer session for \(backend.backendID)")
        self.transport = configuration.transport(httpClient)
        self.broker = broker?.0
        self.profile = broker?.profile ?? "default"
    }

    /// How long a token lasts when the backend gives no `expires_in`: 6 hours unless configured,
    /// like Oracle Mobile Hub's `Security_TokenExchangeTimeoutSecs` policy.
    var defaultTokenLifetime: TimeInterval { configuration.tokenLifetime(else: 6 * 3600) }

    /// The HTTP client facades use unless given another: no redirects, no decompression, and
    /// a 5 s connect timeout, so an unreachable backend is a ``AuthError/transport(reason:)``
    /// rather than a wait for the whole deadline.
    public static let defaultHTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)), decompression: .disabled))

    var now: Date { configuration.now() }
    var leeway: TimeInterval { configuration.leeway }

    // MARK: Logging in

    /// Logs `userName` in, and keeps the login across restarts.
    ///
    /// - HTTP Basic: the backend checks the credentials (`GET {base}/mobile/platform/users/login`);
    ///   the user name and password are stored, since every request carries them.
    /// - OAuth: the RFC 6749 password grant. The token and the refresh token are stored, never
    ///   the password: an expired token renews with the refresh token. When the backend gives
    ///   no refresh token, the session ends with its token, unless the app opted in to
    ///   ``ClientConfiguration/keepsPasswordWithoutRefreshToken``.
    ///
    /// With a broker, the session goes to the agent and this process keeps it without the refresh
    /// token; an HTTP Basic backend is ``AuthError/invalidRequest(reason:)``.
    public func authenticate(userName: String, password: String) async throws(AuthError) {
        guard !userName.isEmpty else { throw .invalidRequest(reason: "the user name is empty") }
        if broker != nil, backend.oauthClient == nil { throw Self.brokersOAuthOnly }
        let started = epoch
        let credentials = BasicCredentials(user: userName, password: password)
        var session = StoredSession(binding: backend.binding, method: .httpBasic, userName: userName, password: password)
        if let client = backend.oauthClient {
            let reply = try await OAuthGrant.password(credentials, scope: backend.scope)
                .send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
            session.method = .oauth
            session.token = reply.accessToken(now: now, defaultLifetime: defaultTokenLifetime)
            session.refreshToken = reply.refreshToken
            if reply.refreshToken != nil || !configuration.keepsPasswordWithoutRefreshToken || broker != nil { session.password = nil }
            if let broker {
                try await hand(session, to: broker, startedAt: started)
                session.refreshToken = nil
            }
        } else {
            try await MobileHubUsers.login(credentials.headerValue, backend: backend, transport: transport)
        }
        try await commit(session, persist: true, startedAt: started)
        configuration.logger.info("logged in", metadata: ["user": "\(userName)", "method": "\(session.method.rawValue)"])
    }

    /// Exchanges a third-party token for a backend token, in the form
    /// ``MobileBackend/tokenExchange`` names. With `storeAccessToken`, the token is stored
    /// (before this returns) and the user stays logged in across restarts until it expires.
    /// With a broker, ``AuthError/invalidRequest(reason:)``: the agent holds OAuth logins only.
    public func authenticateSSOTokenExchange(_ token: String, storeAccessToken: Bool) async throws(AuthError) {
        guard !token.isEmpty else { throw .invalidRequest(reason: "the third-party token is empty") }
        guard broker == nil else { throw Self.brokersOAuthOnly }
        let started = epoch
        let reply: TokenReply
        switch backend.tokenExchange {
        case .omc:
            reply = try await OMCTokenExchange.exchange(token, backend: backend, transport: transport)
        case .rfc8693(let endpoint, let subjectTokenType):
            guard let url = endpoint ?? backend.oauthClient?.tokenEndpoint else {
                throw .invalidRequest(reason: "an RFC 8693 exchange needs a token endpoint")
            }
            reply = try await OAuthGrant.tokenExchange(subjectToken: token, subjectTokenType: subjectTokenType, scope: backend.scope)
                .send(to: url, client: backend.oauthClient, backend: backend, transport: transport)
        }
        let session = StoredSession(
            binding: backend.binding, method: .ssoExchange,
            token: reply.accessToken(now: now, defaultLifetime: defaultTokenLifetime))
        try await commit(session, persist: storeAccessToken, startedAt: started)
        configuration.logger.info("SSO token exchanged", metadata: ["stored": "\(storeAccessToken)"])
    }

    /// Starts anonymous access: the client-credentials grant for OAuth, the anonymous key for
    /// HTTP Basic. Anonymous tokens are kept in memory only and renew by themselves.
    public func authenticateAnonymous() async throws(AuthError) {
        let started = epoch
        if let client = backend.oauthClient {
            let reply = try await OAuthGrant.clientCredentials(scope: backend.scope)
                .send(to: client.tokenEndpoint, client: client, backend: backend, transport: transport)
            guard epoch == started else { throw .cancelled }
            epoch += 1
            state = .anonymous(reply.accessToken(now: now, defaultLifetime: defaultTokenLifetime))
        } else {
            guard backend.anonymousKey != nil else { throw .invalidRequest(reason: "the backend has no anonymous key") }
            epoch += 1
            state = .anonymous(nil)
        }
    }

    /// Persists `session` (when asked, under the session lock) and only then makes it current,
    /// unless a logout or another change came first.
    private func commit(_ session: StoredSession, persist: Bool, startedAt started: UInt64) async throws(AuthError) {
        guard persist else { return try makeCurrent(session, startedAt: started) }
        try await writingSession { () throws(AuthError) in
            guard epoch == started else { throw .cancelled }
            try sessions.save(session)
            try makeCurrent(session, startedAt: started)
        }
    }

    private func makeCurrent(_ session: StoredSession, startedAt started: UInt64) throws(AuthError) {
        guard epoch == started else { throw .cancelled }
        epoch += 1
        state = .session(session)
        broadcaster.send(.loggedIn)
    }

    /// The changes of this session from now on: logins, renewals, logouts, and the end of a
    /// session the backend refused to refresh (``SessionEvent``).
    public nonisolated func events() -> AsyncStream<SessionEvent> {
        broadcaster.stream()
    }

    // MARK: The stored session

    /// Loads the stored session, if it is usable. Returns `false` when there is none, when its
    /// token has expired (leeway included), or when it belongs to another backend or version;
    /// the app then authenticates again. Call it at start-up.
    public func loadSSOTokenExchange() -> Bool {
        do {
            return try loadStoredSession() == .loaded
        } catch {
            configuration.logger.warning("cannot read the stored session", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Loads the stored session and says what was found. Throws when the keychain cannot be
    /// read: a locked store never looks like "no session".
    @discardableResult
    public func loadStoredSession() throws(AuthError) -> SessionLoadResult {
        let stored = try sessions.load()
        epoch += 1
        guard let stored, !stored.isSignedOut else {
            state = .signedOut(otherBackend: false)
            return .missing
        }
        guard stored.binding == backend.binding else {
            state = .signedOut(otherBackend: true)
            return .otherBackend
        }
        state = .session(stored)
        return stored.isUsable(at: now, leeway: leeway) ? .loaded : .expired(renewable: stored.isRenewable)
    }

    /// Removes the stored token: an SSO session, or a session of another backend or version,
    /// is removed whole; an OAuth session keeps its credentials and renews on the next request.
    public func clearSSOTokenExchange() async throws(AuthError) {
        epoch += 1
        await renewal.fail(with: .notAuthenticated)
        if case .session(var session) = state {
            session.token = nil
            state = session.method == .oauth ? .session(session) : .signedOut(otherBackend: false)
        } else if case .signedOut = state {
            state = .signedOut(otherBackend: false)
        }
        try await writingSession { () throws(AuthError) in
            guard var stored = try sessions.load() else { return }
            if stored.binding != backend.binding || stored.method == .ssoExchange {
                try sessions.remove()
            } else if stored.token != nil {
                stored.token = nil
                try sessions.save(stored)
            }
        }
    }

    // MARK: Logging out

    /// Ends the session. The local session is cleared first, so nothing is left behind even
    /// when the backend is unreachable; then an HTTP Basic login is ended at the backend
    /// (`GET {base}/mobile/platform/users/logout`), and the refresh token and the token are
    /// revoked where the backend offers RFC 7009. Throws ``AuthError/logoutIncomplete(_:)``
    /// naming each step that failed.
    ///
    /// - Parameter clearCredentials: `true` removes everything. `false` keeps only the user
    ///   name, so the app can offer it at the next login; the password and tokens always go.
    @discardableResult
    public func logout(clearCredentials: Bool = true) async throws(AuthError) -> LogoutReport {
        if let broker { return try await brokeredLogout(from: broker) }
        epoch += 1
        let previous = state
        state = .signedOut(otherBackend: false)
        await renewal.fail(with: .notAuthenticated)
        var report = LogoutReport()
        var failures: [LogoutFailure] = []
        var tokens: [AccessToken] = previous.token.map { [$0] } ?? []
        var refreshToken: String?
        var basic: BasicCredentials?
        if case .session(let session) = previous, session.method == .httpBasic { basic = session.basicCredentials }

        do {
            // Under the session lock: a renewal in flight elsewhere stores its rotated session
            // first, which is then the one removed and revoked here, not written back after.
            try await writingSession { () throws(AuthError) in
                let stored = try sessions.load()
                if let stored, stored.binding == backend.binding {
                    refreshToken = stored.refreshToken
                    if stored.method == .httpBasic, basic == nil { basic = stored.basicCredentials }
                    // The same token, by its value: the stored copy's dates went through JSON and may differ in the last bits.
                    if let token = stored.token, !tokens.contains(where: { $0.value == token.value }) { tokens.append(token) }
                }
                if let stored, !clearCredentials, stored.binding == backend.binding, let userName = stored.userName {
                    try sessions.save(StoredSession(binding: stored.binding, method: stored.method, userName: userName))
                    report.keptUserName = true
                    report.removedStoredSession = true
                } else {
                    report.removedStoredSession = try sessions.remove()
                }
            }
        } catch {
            failures.append(LogoutFailure(step: .removeStoredSession, reason: error.description))
        }

        if let basic {
            do {
                try await MobileHubUsers.logout(basic.headerValue, backend: backend, transport: transport)
                report.loggedOutAtBackend = true
            } catch {
                failures.append(LogoutFailure(step: .serverLogout, reason: error.description))
            }
        }
        if let endpoint = backend.revocationEndpoint {
            let revocations = (refreshToken.map { [(token: $0, hint: "refresh_token")] } ?? []) + tokens.map { (token: $0.value, hint: "access_token") }
            let outcome = await TokenRevocation.revokeAll(
                revocations, at: endpoint, client: backend.oauthClient?.credentials, backendID: backend.backendID, transport: transport)
            report.revoked = outcome.revoked
            failures += outcome.failures
        }
        broadcaster.send(.loggedOut)
        configuration.logger.info("logged out", metadata: ["failures": "\(failures.count)"])
        guard failures.isEmpty else { throw .logoutIncomplete(failures) }
        return report
    }

    // MARK: The current session

    /// Ends the session and removes everything stored for it: ``logout(clearCredentials:)`` with `true`.
    @discardableResult
    public func logout() async throws(AuthError) -> LogoutReport {
        try await logout(clearCredentials: true)
    }

    /// The user logged in, as stored: their user name; `nil` for anonymous and SSO sessions
    /// and when logged out. ``currentUser()`` asks the backend for the rest.
    public var user: AuthenticatedUser? {
        userName.map { AuthenticatedUser(id: $0, preferredUsername: $0) }
    }

    /// Whether a request can be authorized now without the network: a valid token (leeway
    /// included), HTTP Basic credentials, or anonymous access.
    public var isAuthorized: Bool { status.isAuthorized }

    /// The logged-in user's name; `nil` for anonymous and SSO sessions and when logged out.
    public var userName: String? { status.userName }

    /// When the current token expires; `nil` when the session has no token.
    public var tokenExpiresAt: Date? { status.tokenExpiresAt }

    /// A snapshot of the session, loading the stored session first if nothing was loaded yet.
    ///
    /// With a broker, what the agent last handed out: ask for a token (``accessToken()``) first.
    public var status: SessionStatus {
        if broker != nil { return brokeredStatus }
        if case .unloaded = state { _ = try? loadStoredSession() }
        return state.status(at: now, leeway: leeway, binding: backend.binding)
    }
}
