import AsyncHTTPClient
import Coffer
import Foundation

/// The app's client of a MobileFirst 8 or Mobile Client Access server: where its challenge
/// handlers are registered (once, for the app's lifetime), and what sends its
/// ``ResourceRequest``s. Modelled on `WLClient` and `IMFClient`.
///
/// ```swift
/// let client = ChallengeClient(server: .mobileFirst(serverURL), store: vault)
/// client.registerChallengeHandler(PinCodeChallengeHandler(securityCheck: "PinCodeAttempts"))
/// let balance = try await ResourceRequest(url: serverURL.appendingPathComponent("mfp/balance")).send(using: client)
/// ```
///
/// The client's registration, its tokens and the authenticated user are kept in `store`
/// (the Coffer vault, or the Secret Service; service `coffer.auth`), so a restarted app is the
/// same client.
public final class ChallengeClient: AuthorizationClient {
    /// The client's policies.
    public typealias Configuration = ClientConfiguration

    /// The server.
    public let server: ChallengeServer
    /// Tokens, preemptive login, logout and the challenged state, per security check.
    public let authorizationManager: AuthorizationManager
    let registry = HandlerRegistry()

    /// A client of `server` that keeps its registration and tokens in `store`.
    ///
    /// - Parameters:
    ///   - server: The MobileFirst or Mobile Client Access server.
    ///   - store: Where the client's registration, key and tokens are stored.
    ///   - configuration: The client's policies.
    ///   - httpClient: The client to send requests with. It must not follow redirects (the
    ///     default does not): the authorization code comes in a redirect's `Location`.
    public init(
        server: ChallengeServer, store: any CredentialStore, configuration: Configuration = Configuration(),
        httpClient: HTTPClient = Authorization.defaultHTTPClient
    ) {
        self.server = server
        self.authorizationManager = AuthorizationManager(
            server: server, configuration: configuration, registry: registry, store: store, httpClient: httpClient)
    }

    /// The client's policies.
    public var configuration: Configuration { authorizationManager.configuration }

    /// Registers `handler` for its security check, replacing any earlier handler for it. A
    /// challenge already being shown stays with the handler it was shown to. A handler serves
    /// one client: it shows one challenge at a time.
    public func registerChallengeHandler(_ handler: SecurityCheckChallengeHandler) {
        registry.register(handler)
    }

    /// Registers `delegate` for the Mobile Client Access realm `realm`, replacing any earlier one.
    public func registerAuthenticationDelegate(_ delegate: any AuthenticationDelegate, forRealm realm: String) {
        registry.register(RealmDelegateResponder(name: realm, delegate: delegate))
    }

    /// The servers whose clients `store` holds (items written by a ``ChallengeClient`` with
    /// its default ``ClientConfiguration/sessionAccount``), so that an app can end them all, for
    /// example with ``AuthorizationManager/logoutAll()``. Items that cannot be decoded are left out.
    public static func storedServers(in store: any CredentialStore) throws(AuthError) -> [ChallengeServer] {
        let keychain = Keychain(service: SessionStore<ChallengeSession>.service, store: store)
        let items: [ItemAttributes]
        do { items = try keychain.items(matching: ["coffer.auth": "challenges"]) } catch { throw .storage(error) }
        var servers: [ChallengeServer] = []
        for item in items {
            if let server = try SessionStore<ChallengeSession>(keychain: keychain, account: item.id.account, label: "").load()?.server {
                servers.append(server)
            }
        }
        return servers
    }

    /// Sends `request`, answering the challenges its resource brings: the same as
    /// ``ResourceRequest/send(using:)``.
    public func send(_ request: ResourceRequest) async throws(AuthError) -> HTTPReply {
        try await authorizationManager.perform(request)
    }

    /// A token for the default scope: ``AuthorizationManager/obtainAccessToken(scope:)`` with none.
    public func accessToken() async throws(AuthError) -> AccessToken {
        try await authorizationManager.obtainAccessToken()
    }

    /// The user last authenticated: ``AuthorizationManager/userIdentity``.
    public var user: AuthenticatedUser? {
        get async { await authorizationManager.userIdentity }
    }

    /// Ends the client: ``AuthorizationManager/logoutAll()``.
    @discardableResult
    public func logout() async throws(AuthError) -> LogoutReport {
        try await authorizationManager.logoutAll()
    }

    /// Logins (a security check or realm that names its user), new tokens, and logouts.
    public func events() -> AsyncStream<SessionEvent> {
        authorizationManager.broadcaster.stream()
    }
}
