import AsyncHTTPClient
import Coffer
import Foundation

/// Obtains, caches and stores access tokens for a ``ChallengeClient``, driving the security
/// checks' (or realms') challenges through the registered handlers. Modelled on
/// MobileFirst's `WLAuthorizationManager` and Mobile Client Access's `IMFAuthorizationManager`.
///
/// ```swift
/// if !loginHandler.isChallenged {
///     try await client.authorizationManager.login(securityCheck: "UserLogin",
///                                                 credentials: ["username": "john", "password": "john", "rememberMe": true])
/// }
/// let token = try await client.authorizationManager.obtainAccessToken(scope: "UserLogin")
/// try await client.authorizationManager.logout(securityCheck: "UserLogin")
/// ```
///
/// - Tokens are cached by scope and reused until they expire; concurrent callers that need a
///   token for the same scope share one authorization flow, so the user is prompted once.
/// - The client's registration (its id and its private key, which never leaves the keychain
///   item), its tokens and the authenticated user are stored in the keychain (before success
///   is reported), so a restarted app stays registered and, while the server remembers it,
///   gets a token without a challenge.
/// - Every caller gets a token or a typed ``AuthError``; none waits forever.
public actor AuthorizationManager {
    /// The server tokens come from.
    public nonisolated let server: ChallengeServer
    /// The client's policies.
    public nonisolated let configuration: ChallengeClient.Configuration

    nonisolated let registry: HandlerRegistry
    /// Tells the app about logins, new tokens and logouts.
    nonisolated let broadcaster = SessionEvents()
    let wire: any ChallengeWire
    let transport: HTTPTransport
    let store: SessionStore<ChallengeSession>

    /// The stored registration, tokens and user; `nil` until the keychain is first read.
    var session: ChallengeSession?
    /// One flow per scope, shared by every caller that needs a token for it.
    var flights: [TokenScope: SingleFlight<AccessToken>] = [:]
    /// One registration, shared by every flow that needs it.
    let registering = SingleFlight<ClientRegistration>()
    /// The checks whose challenge a flow is answering now.
    var openChallenges: [String: OpenChallenge] = [:]
    /// The scope each resource path asked for last, so that the next request carries its token at once.
    var scopeHints: [String: TokenScope] = [:]
    var lastID: UInt64 = 0
    /// Bumped by every logout. A token whose flow started before it is handed to its callers but not kept.
    var epoch: UInt64 = 0
    /// The server's clock minus the client's, as MobileFirst's `clockSynchronization` last told;
    /// client assertions are dated by the server's clock.
    var serverClockOffset: TimeInterval = 0
    /// Whether the stored registration was compared with the current device and application data.
    var registrationChecked = false
    /// When the last signed message was dated, in whole milliseconds, so that the next is dated
    /// later (see ``nextSigningTime()``).
    var lastSigningMilliseconds = 0.0

    init(server: ChallengeServer, configuration: ChallengeClient.Configuration, registry: HandlerRegistry, store: any CredentialStore, httpClient: HTTPClient) {
        self.server = server
        self.configuration = configuration
        self.registry = registry
        self.wire = switch server.kind {
        case .mobileFirst(let runtime):
            MobileFirstWire(server: server, apiURL: server.url.appendingPathComponent(runtime).appendingPathComponent(MobileFirstPath.api))
        case .mobileClientAccess(let tenantID, let authorizationServer):
            ClientAccessWire(server: server, appURL: authorizationServer.appendingPathComponent(ClientAccessPath.apps).appendingPathComponent(tenantID))
        }
        self.transport = configuration.transport(httpClient)
        self.store = SessionStore(
            keychain: Keychain(service: SessionStore<ChallengeSession>.service, store: store),
            account: configuration.sessionAccount ?? "challenges \(server.storageKey)",
            label: "Coffer challenge client for \(server.storageKey)", kind: "challenges")
    }

    var now: Date { configuration.now() }
    var leeway: TimeInterval { configuration.leeway }
    /// Now by the server's clock, as far as the client knows it, and at least a millisecond after
    /// the last signed message: what signed messages are dated with. Two assertions of one
    /// client never carry the same `iat` (logouts carry no `jti`), so a server that refuses a
    /// replayed assertion never refuses a new one.
    func nextSigningTime() -> Date {
        let milliseconds = max((now.addingTimeInterval(serverClockOffset).timeIntervalSince1970 * 1000).rounded(.down), lastSigningMilliseconds + 1)
        lastSigningMilliseconds = milliseconds
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    // MARK: The MobileFirst and MCA calls

    /// Logs in to `securityCheck` with `credentials`, without waiting for a challenge
    /// (preemptive login), for example `["username": "john", "password": "john", "rememberMe": true]`.
    ///
    /// When the check is already challenged, the credentials answer that challenge. Wrong
    /// credentials bring a challenge to the check's handler, and the call completes once that
    /// challenge ends. Besides completing, the call reaches the handler's `handleSuccess` or
    /// `handleFailure`, as in MobileFirst.
    public func login(securityCheck: String, credentials: JSONValue) async throws(AuthError) {
        guard ChallengeText.isValidName(securityCheck) else { throw .invalidRequest(reason: "not a security-check name") }
        if let open = openChallenges[securityCheck], open.responder.prompt.deliver(.answer(credentials)) {
            switch await park(on: securityCheck) {
            case .succeeded: return
            case .failed(let error): throw error
            case .abandoned: break
            }
        }
        _ = try await authorize(
            scope: TokenScope(securityCheck), answers: [securityCheck: credentials], wantsToken: false, startedAt: epoch).get()
    }

    /// A token for `scope` (space-separated elements; a security check's name is a scope): the
    /// cached one while it is valid, else a new one, after the challenges the server sends.
    /// Succeeds without a challenge while the client is logged in or remembered. Besides
    /// completing, the call reaches the handlers' `handleSuccess` or `handleFailure`.
    public func obtainAccessToken(scope: String? = nil) async throws(AuthError) -> AccessToken {
        try await accessToken(for: TokenScope(scope))
    }

    /// Logs out of `securityCheck`: forgets, in memory and in the keychain, every token that
    /// depends on it (and the user it authenticated), then logs the client out at the server
    /// (MobileFirst: of the check, with a signed client assertion; Mobile Client Access: its
    /// whole session). The next request that needs the check is challenged again. Throws
    /// ``AuthError/logoutIncomplete(_:)`` when the server step failed; the local step is done by then.
    public func logout(securityCheck: String) async throws(AuthError) {
        epoch += 1
        var session = try loaded()
        session.tokens.removeAll { wire.token(of: $0.scope, dependsOn: securityCheck) }
        if let user = session.user, user.authenticatedBy == nil || user.authenticatedBy == securityCheck { session.user = nil }
        try store.save(session)
        self.session = session
        broadcaster.send(.loggedOut)
        guard let registration = session.registration else { return }
        do {
            try await wire.logout(check: securityCheck, client: registration, transport: transport, at: nextSigningTime())
        } catch {
            throw .logoutIncomplete([LogoutFailure(step: .serverLogout, reason: error.description)])
        }
        configuration.logger.info("logged out of a security check", metadata: ["check": "\(securityCheck)"])
    }

    /// Ends the client entirely: removes its item from the keychain first (the registration and
    /// its private key, every token, the user), then logs it out at the server: of every
    /// security check it held a token for or was authenticated by (MobileFirst), or of its
    /// session (Mobile Client Access). A later request registers a new client, with a new key.
    /// Throws ``AuthError/logoutIncomplete(_:)`` naming each server step that failed; the local
    /// step is done by then.
    @discardableResult
    public func logoutAll() async throws(AuthError) -> LogoutReport {
        epoch += 1
        let ended = try loaded()
        var report = LogoutReport(removedStoredSession: try store.remove())
        session = ChallengeSession(server: server)
        broadcaster.send(.loggedOut)
        guard let registration = ended.registration else { return report }
        let checks = Set(ended.tokens.flatMap(\.scope.elements) + [ended.user?.authenticatedBy].compactMap { $0 })
        let logouts = wire.logsOutPerCheck ? checks.sorted().filter(ChallengeText.isValidName) : [""]
        var failures: [LogoutFailure] = []
        for check in logouts {
            do {
                try await wire.logout(check: check, client: registration, transport: transport, at: nextSigningTime())
            } catch {
                failures.append(LogoutFailure(step: .serverLogout, reason: (check.isEmpty ? "" : "\(check): ") + error.description))
            }
        }
        guard failures.isEmpty else { throw .logoutIncomplete(failures) }
        report.loggedOutAtBackend = true
        configuration.logger.info("logged the client out and forgot it", metadata: ["server": "\(server.storageKey)"])
        return report
    }

    /// Whether `securityCheck` (or realm) is challenged: from its first challenge until it
    /// succeeds, fails or is cancelled.
    public nonisolated func isChallenged(securityCheck: String) -> Bool {
        registry.responder(for: securityCheck)?.prompt.isChallenged ?? false
    }

    /// The user last authenticated (MCA's `userIdentity`; MobileFirst's authenticated user),
    /// as stored; `nil` when none is, or after a failure or logout of the check that authenticated them.
    public var userIdentity: AuthenticatedUser? { (try? loaded())?.user }

    // MARK: Tokens

    /// A token for `scope`: a cached one that is still valid by the client's clock (unless
    /// `cached` is `false`), else one from a new (single-flight) authorization.
    func accessToken(for scope: TokenScope, cached: Bool = true) async throws(AuthError) -> AccessToken {
        if cached, let token = try loaded().token(for: scope, at: now, leeway: leeway) { return token }
        let flight: SingleFlight<AccessToken>
        if let running = flights[scope] {
            flight = running
        } else {
            flight = SingleFlight()
            flights[scope] = flight
        }
        let started = epoch
        return try await flight.run { [self] in
            await authorize(scope: scope, answers: [:], wantsToken: true, startedAt: started).flatMap { token in
                token.map { .success($0) } ?? .failure(.malformedResponse(reason: "the server granted no token"))
            }
        }
    }

    /// Stores a new token for `scope` (and the user the grant names), then returns it: unless a
    /// logout came since the flow started, in which case it is returned but not kept.
    func keep(_ grant: TokenGrant, for scope: TokenScope, startedAt started: UInt64) throws(AuthError) -> AccessToken {
        var token = grant.reply.accessToken(now: now, defaultLifetime: configuration.tokenLifetime(else: 3600))
        token.idToken = grant.resourceIDToken
        guard started == epoch else { return token }
        var session = try loaded()
        session.keep(token, for: scope, now: now)
        if let user = grant.user { session.user = user }
        try store.save(session)
        self.session = session
        broadcaster.send(grant.user == nil ? .refreshed : .loggedIn)
        return token
    }

    /// Forgets `token` after a resource refused it, so that the next request gets a new one.
    func discard(_ token: AccessToken) {
        guard var session, session.tokens.contains(where: { $0.token == token }) else { return }
        session.tokens.removeAll { $0.token == token }
        self.session = session
        do { try store.save(session) } catch {
            configuration.logger.warning("cannot store the session after a refused token", metadata: ["error": "\(error)"])
        }
    }

    /// The session, read from the keychain the first time. A session stored for another server
    /// counts as none (it is replaced at the next write). A keychain that cannot be read throws:
    /// it never looks like "not registered".
    func loaded() throws(AuthError) -> ChallengeSession {
        if let session { return session }
        let stored = try store.load()
        let current = stored.flatMap { $0.server == server ? $0 : nil } ?? ChallengeSession(server: server)
        session = current
        return current
    }

    /// Changes the stored session (and persists it) before anything is reported.
    func update(_ change: (inout ChallengeSession) -> Void) throws(AuthError) {
        var session = try loaded()
        change(&session)
        guard session != self.session else { return }
        try store.save(session)
        self.session = session
    }

    // MARK: Registration

    /// The client's registration: the stored one (brought up to date at the server once, when
    /// the device or application data changed), or a new one with a new key (shared by
    /// concurrent flows, stored before use). `stale` is one the server no longer knows.
    func registration(replacing stale: ClientRegistration? = nil) async throws(AuthError) -> ClientRegistration {
        if registrationChecked, let current = try loaded().registration, current != stale { return current }
        return try await registering.run { [self] in
            do throws(AuthError) { return .success(try await register(replacing: stale)) } catch { return .failure(error) }
        }
    }

    private func register(replacing stale: ClientRegistration?) async throws(AuthError) -> ClientRegistration {
        let session = try loaded()
        if let current = session.registration, current != stale {
            if registrationChecked { return current }
            switch try await wire.update(current, deviceID: session.deviceID, transport: transport) {
            case .current:
                registrationChecked = true
                return current
            case .updated(let updated):
                try update { $0.registration = updated }
                registrationChecked = true
                configuration.logger.info("updated the client's registration", metadata: ["server": "\(server.storageKey)"])
                return updated
            case .unknownClient:
                break
            }
        }
        let registration = try await wire.register(deviceID: session.deviceID, transport: transport, at: now)
        try update { session in
            session.registration = registration
            session.tokens = []
        }
        registrationChecked = true
        configuration.logger.info("registered the client", metadata: ["server": "\(server.storageKey)"])
        return registration
    }

    func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// How many callers wait for the token flow of `scope`: what the concurrency tests watch.
    package func waiting(forScope scope: String?) async -> Int {
        await flights[TokenScope(scope)]?.waiting ?? 0
    }
}
