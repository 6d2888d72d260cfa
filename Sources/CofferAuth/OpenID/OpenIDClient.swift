import AsyncHTTPClient
import Coffer
import Foundation

/// Logs a user in to an OpenID Connect provider (or OAuth 2.0 authorization server) the way
/// native apps should (RFC 8252), and keeps them logged in across restarts with a refresh
/// token, never a password.
///
/// ```swift
/// let provider = try await OpenIDProvider.discover(issuer: URL(string: "https://id.example.com")!)
/// let client = OpenIDClient(provider: provider, clientID: "my-app", store: vault)
/// if try await client.user == nil {
///     try await client.logInWithBrowser()              // or logInWithDevice { show($0) }
/// }
/// let token = try await client.accessToken()           // refreshed when needed
/// ```
///
/// - Logins: authorization code with PKCE on a one-shot loopback redirect
///   (``startBrowserLogin(scope:apiOrigins:)``), or the device authorization grant
///   (``startDeviceLogin(scope:apiOrigins:)``). ID tokens are verified before anything is stored.
/// - The session is one item in `store` (service `coffer.openid`), per issuer, client id and
///   `profile`: the refresh token, the current access token and the user's identity.
/// - Refreshing is single-flight within the process and across processes (a lock file), and a
///   rotated refresh token is stored before the new access token is used.
/// - Every failure is a typed ``AuthError``; ``events()`` reports logins, refreshes, logouts
///   and the end of a session.
public actor OpenIDClient: AuthorizationClient {
    /// The client's policies.
    public typealias Configuration = ClientConfiguration
    /// The provider.
    public nonisolated let provider: OpenIDProvider
    /// The client id the provider registered.
    public nonisolated let clientID: String
    /// The name of this login among others of the same issuer and client.
    public nonisolated let profile: String
    /// The client's policies.
    public nonisolated let configuration: Configuration

    nonisolated let credentials: ClientCredentials
    nonisolated let store: any CredentialStore
    nonisolated let location: OpenIDSessionLocation
    nonisolated let transport: HTTPTransport
    nonisolated let httpClient: HTTPClient
    nonisolated let verifier: IDTokenVerifier
    nonisolated let broadcaster = SessionEvents()
    let refreshing = SingleFlight<AccessToken>()
    /// The agent that holds this client's login, when it has one (``init(provider:clientID:clientSecret:broker:profile:configuration:httpClient:)``).
    nonisolated let broker: AgentTokenBroker?
    /// With a broker: the last access token it handed out, and the origins it may go to.
    var brokered: BrokeredToken?

    /// The session as last read or written; `nil` before the store is first read.
    var cached: OpenIDSession??
    /// The stored bytes last read or written, with their session: reading the same bytes
    /// again needs no decoding.
    var storedCopy: OpenIDSessionLocation.StoredCopy?
    /// Bumped by every login and logout: a refresh that started before one is not kept.
    var epoch: UInt64 = 0
    /// The access token a resource refused (``send(_:)``): not used again, even though the
    /// stored session, read again before refreshing, still holds it as unexpired.
    var refusedAccessToken: String?

    /// A client of `provider` that keeps its session in `store`.
    ///
    /// - Parameters:
    ///   - provider: The provider, discovered or with its endpoints given.
    ///   - clientID: The client id the provider registered.
    ///   - clientSecret: For a confidential client only; native apps are public clients.
    ///   - store: Where the session is stored.
    ///   - profile: 1 to 64 letters, digits, `.`, `_` or `-`: several logins to one provider.
    ///   - configuration: The client's policies.
    ///   - httpClient: It must not follow redirects (the default does not).
    public init(
        provider: OpenIDProvider, clientID: String, clientSecret: String? = nil, store: any CredentialStore,
        profile: String = "default", configuration: Configuration = Configuration(),
        httpClient: HTTPClient = Authorization.defaultHTTPClient
    ) {
        self.init(
            provider: provider, clientID: clientID, clientSecret: clientSecret, store: store, broker: nil, profile: profile,
            configuration: configuration, httpClient: httpClient)
    }

    /// A client whose login the agent's token broker holds (docs/agent.md, "The token broker"):
    /// a login hands the session, refresh token included, to the agent; ``accessToken()``,
    /// ``send(_:)-(HTTPClientRequest)`` and ``logout()`` ask the agent, which refreshes, so this
    /// process never holds the refresh token. An agent that is missing, does not hold the vault
    /// or refuses this program throws ``AuthError/storage(_:)``; nothing falls back to keeping
    /// the refresh token here.
    public init(
        provider: OpenIDProvider, clientID: String, clientSecret: String? = nil, broker: AgentTokenBroker,
        profile: String = "default", configuration: Configuration = Configuration(),
        httpClient: HTTPClient = Authorization.defaultHTTPClient
    ) {
        self.init(
            provider: provider, clientID: clientID, clientSecret: clientSecret, store: InMemoryStore(now: configuration.now), broker: broker,
            profile: profile, configuration: configuration, httpClient: httpClient)
    }

    private init(
        provider: OpenIDProvider, clientID: String, clientSecret: String?, store: any CredentialStore, broker: AgentTokenBroker?,
        profile: String, configuration: Configuration, httpClient: HTTPClient
    ) {
        self.provider = provider
        self.clientID = clientID
        self.profile = profile
        self.configuration = configuration
        self.credentials = ClientCredentials(id: clientID, secret: clientSecret)
        self.store = store
        self.broker = broker
        self.location = OpenIDSessionLocation(issuer: provider.issuer.absoluteString, clientID: clientID, profile: profile)
        self.httpClient = httpClient
        self.transport = configuration.transport(httpClient)
        self.verifier = IDTokenVerifier(
            provider: provider, clientID: clientID, transport: transport, leeway: configuration.leeway, now: configuration.now)
    }

    /// Whether `profile` can name a profile: 1 to 64 letters, digits, `.`, `_` or `-`.
    public static func isValidProfile(_ profile: String) -> Bool {
        AgentRequest.isValidProfile(profile)
    }

    var now: Date { configuration.now() }

    // MARK: The session

    /// The user logged in, or `nil` when no one is.
    public var user: AuthenticatedUser? {
        get throws(AuthError) { try session()?.identity }
    }

    /// A snapshot of the session, read without the network. It never holds a token.
    /// With a broker, what the agent last handed out: ask for a token (``accessToken()``) first.
    public var status: OpenIDSessionStatus {
        get throws(AuthError) {
            if broker != nil { return brokeredStatus }
            guard let session = try session() else { return OpenIDSessionStatus(issuer: provider.issuer) }
            return OpenIDSessionStatus(
                issuer: provider.issuer, user: session.identity, accessTokenExpiresAt: session.accessToken?.expiresAt,
                refreshTokenHeld: session.refreshToken != nil,
                isAuthorized: session.hasUsableToken(at: now, leeway: configuration.leeway),
                apiOrigins: session.apiOrigins)
        }
    }

    /// The scope the provider granted, as last known: with a broker, that of the token it last
    /// handed out.
    public var scope: String? {
        get throws(AuthError) { broker != nil ? brokered?.scope : try session()?.scope }
    }

    /// Whether the agent's token broker holds this client's login (``AgentTokenBroker``).
    public nonisolated var isBrokered: Bool { broker != nil }

    /// The changes of this session from now on: logins, refreshes, logouts, and the end of a
    /// session the provider refused to refresh.
    public nonisolated func events() -> AsyncStream<SessionEvent> {
        broadcaster.stream()
    }

    /// The stored session, read once.
    func session() throws(AuthError) -> OpenIDSession? {
        if let cached { return cached }
        return try reloadSession()
    }

    /// Reads the stored session again: another process may have refreshed or ended it.
    func reloadSession() throws(AuthError) -> OpenIDSession? {
        storedCopy = try location.load(from: store, known: storedCopy)
        cached = .some(storedCopy?.session)
        return storedCopy?.session
    }

    /// Stores `session` durably, then makes it current.
    func keep(_ session: OpenIDSession) throws(AuthError) {
        storedCopy = try location.save(session, to: store)
        cached = .some(session)
    }

    /// The lock every writer of the stored session holds: a refresh, a login, a logout.
    var sessionLockName: String { Self.sessionLockName(location) }

    /// The session lock's name for the login stored at `location` (the agent's broker takes it too).
    static func sessionLockName(_ location: OpenIDSessionLocation) -> String {
        "openid \(location.itemID.account)"
    }

    /// Runs `body`, a write of the stored session, holding the session lock
    /// (``RefreshLock/writing(name:folder:timeout:isolation:_:)``).
    func writingSession<Value>(_ body: () throws(AuthError) -> Value) async throws(AuthError) -> Value {
        try await RefreshLock.writing(name: sessionLockName, folder: configuration.lockFolder, timeout: configuration.refreshLockTimeout, body)
    }

    // MARK: Finishing a login

    /// Verifies the token reply of a login, then stores the session before reporting success.
    func finishLogin(_ reply: TokenReply, nonce: String?, requireIDToken: Bool, scope: String, apiOrigins: [URL], startedAt started: UInt64) async throws(AuthError) -> AuthenticatedUser {
        var identity: AuthenticatedUser?
        if let idToken = reply.idToken {
            identity = try await verifier.verify(idToken, nonce: nonce).identity
        } else if requireIDToken {
            throw .untrustedResponse(reason: "the provider returned no ID token for an openid login")
        }
        guard epoch == started else { throw .cancelled }
        let granted = reply.scope ?? scope
        if identity == nil, TokenScope(granted).elements.contains("openid") {
            identity = try await UserInfo.identity(provider: provider, token: reply.accessToken, transport: transport)
        }
        let origins = apiOrigins.isEmpty ? [provider.issuer] : apiOrigins
        let session = OpenIDSession(
            issuer: location.issuer, clientID: clientID, profile: profile, refreshToken: reply.refreshToken,
            accessToken: reply.accessToken(now: now, defaultLifetime: configuration.tokenLifetime(else: 3600)), scope: granted,
            identity: identity, apiOrigins: origins.compactMap(Self.origin))
        if let broker {
            try await hand(session, to: broker)
        } else {
            try await writingSession { () throws(AuthError) in try keep(session) }
        }
        epoch += 1
        broadcaster.send(.loggedIn)
        configuration.logger.info("logged in", metadata: ["issuer": "\(location.issuer)", "profile": "\(profile)"])
        return identity ?? AuthenticatedUser(id: "")
    }

    /// `scheme://host[:port]` of `url`, lowercased, the way tokens are matched to their APIs.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

/// What ``OpenIDClient/status`` reports: never a token.
public struct OpenIDSessionStatus: Sendable, Hashable {
    /// The provider's issuer.
    public let issuer: URL
    /// The user, when logged in.
    public var user: AuthenticatedUser?
    /// When the current access token expires.
    public var accessTokenExpiresAt: Date?
    /// Whether the session holds a refresh token, so it outlives its access token.
    public var refreshTokenHeld = false
    /// Whether a request can be authorized now without the network.
    public var isAuthorized = false
    /// The origins the access token may be sent to.
    public var apiOrigins: [String] = []

    /// Whether anyone is logged in.
    public var isLoggedIn: Bool { user != nil || refreshTokenHeld || accessTokenExpiresAt != nil }
    /// Whether the access token has expired (or is missing) and the refresh token renews it
    /// without the user: the next request refreshes it, unless the provider refuses.
    public var needsRefresh: Bool { !isAuthorized && refreshTokenHeld }
    /// Whether no request can be authorized until the user logs in again.
    public var needsLogin: Bool { !isAuthorized && !refreshTokenHeld }
}
