import CofferBase
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird server that speaks every protocol of docs/protocol.md, for development and
/// tests: the HTTP Basic check, the OAuth token endpoint (password, client-credentials,
/// RFC 8693 and refresh-token grants), OMC's SSO exchange, RFC 7009 revocation,
/// `GET /protected`, MobileFirst and MCA challenges, and an OpenID provider at ``issuer``
/// (discovery, JWKS, authorization code with PKCE, device flow, refresh tokens, ID tokens).
///
/// It shares no code with CofferAuth, the client it serves: it reads forms with Hummingbird's
/// form decoder, `Authorization` headers with hummingbird-auth's parsers, JSON with Foundation,
/// and signatures with swift-crypto, so that a mistake in the client is not mirrored here.
///
/// ```swift
/// let backend = try await DevBackend.start()          // 127.0.0.1, a free port
/// // point a client at backend.baseURL, backend.tokenEndpoint, backend.issuer, …
/// await backend.stop()
/// ```
public final class DevBackend: Sendable {
    /// Where it listens, for example `http://127.0.0.1:41234`.
    public let baseURL: URL
    let state: DevBackendState
    private let services: ServiceGroup
    private let server: Task<Void, any Error>

    private init(baseURL: URL, state: DevBackendState, services: ServiceGroup, server: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.state = state
        self.services = services
        self.server = server
    }

    /// Its configuration.
    public var configuration: Configuration { state.configuration }
    /// The faults armed for the next replies.
    public var faults: FaultInjector { state.faults }
    /// The OpenID faults armed for the next ID tokens, redirects, refreshes and device polls.
    public var openIDFaults: OpenIDFaults { state.openIDFaults }
    /// How many requests of each kind it has answered.
    public var statistics: Statistics { state.statistics.snapshot }

    /// The OAuth token endpoint.
    public var tokenEndpoint: URL { url(DevBackendPath.token) }
    /// The RFC 7009 revocation endpoint.
    public var revocationEndpoint: URL { url(DevBackendPath.revocation) }
    /// `GET /protected`.
    public var protectedURL: URL { url(DevBackendPath.protected) }
    /// `GET /anonymous`.
    public var anonymousURL: URL { url(DevBackendPath.anonymous) }

    /// The OpenID provider's issuer: the base URL and `/oidc`, for example
    /// `http://127.0.0.1:41234/oidc`, exactly as discovery, ID tokens and redirects name it.
    public var issuer: URL { url(DevBackendPath.OpenID.issuer) }
    /// OpenID Connect discovery: `{issuer}/.well-known/openid-configuration`.
    public var discoveryURL: URL { url(DevBackendPath.OpenID.discovery) }
    /// The JWKS with the provider's RS256 key.
    public var jwksURL: URL { url(DevBackendPath.OpenID.jwks) }
    /// The OpenID authorization endpoint.
    public var authorizationEndpoint: URL { url(DevBackendPath.OpenID.authorize) }
    /// RFC 8628's device authorization endpoint.
    public var deviceAuthorizationEndpoint: URL { url(DevBackendPath.OpenID.device) }
    /// The device verification page (the `verification_uri`).
    public var deviceVerificationURL: URL { url(DevBackendPath.OpenID.deviceVerify) }
    /// The UserInfo endpoint.
    public var userinfoEndpoint: URL { url(DevBackendPath.OpenID.userinfo) }

    /// Approves the pending device login of `userCode` (as shown, any case, dash optional) for
    /// `user`, as a person on the verification page would. Returns whether a pending,
    /// unexpired code was found.
    @discardableResult
    public func approveDeviceLogin(userCode: String, as user: String) -> Bool {
        state.deviceGrants.decide(userCode: userCode, user: user, at: state.now) == .decided
    }

    /// Denies the pending device login of `userCode`. Returns whether a pending, unexpired code was found.
    @discardableResult
    public func denyDeviceLogin(userCode: String) -> Bool {
        state.deviceGrants.decide(userCode: userCode, user: nil, at: state.now) == .decided
    }

    private func url(_ path: String) -> URL { baseURL.appendingPathComponent(String(path.dropFirst())) }

    /// A MobileFirst resource: `protected` (scope `UserLogin`), `balance` (`PinCodeAttempts`),
    /// `transfer` (both) or `registered` (`RegisteredClient` alone).
    public func mobileFirstURL(_ resource: String) -> URL { url(DevBackendPath.mobileFirst(resource, configuration.mobileFirst)) }
    /// `GET /mca/protected`, behind the MCA realm.
    public var clientAccessProtectedURL: URL { url(ClientAccessConfiguration.protectedPath) }

    /// Starts a server in this process and returns once it listens.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> DevBackend {
        let state = DevBackendState(configuration: configuration)
        let started = StartSignal()
        let application = makeApplication(state, onServerRunning: { channel in
            if let port = channel.localAddress?.port { state.baseURL = baseURLFor(host: configuration.host, port: port) }
            started.succeed(channel.localAddress?.port)
        })
        let services = ServiceGroup(configuration: .init(services: [application], logger: configuration.logger))
        let server = Task {
            do {
                try await services.run()
                started.fail(DevBackendError.stoppedBeforeStarting)
            } catch {
                started.fail(error)
                throw error
            }
        }
        let port = try await started.port()
        return DevBackend(baseURL: baseURLFor(host: configuration.host, port: port), state: state, services: services, server: server)
    }

    /// Stops the server gracefully: ends every hang, lets requests in progress finish, then shuts down.
    public func stop() async {
        state.faults.releaseHangs()
        await services.triggerGracefulShutdown()
        _ = await server.result
    }

    /// Runs a server until SIGINT or SIGTERM; `onStarted` gets its base URL once it listens.
    public static func run(_ configuration: Configuration, onStarted: @escaping @Sendable (URL) -> Void) async throws {
        let state = DevBackendState(configuration: configuration)
        let application = makeApplication(state, onServerRunning: { channel in
            let baseURL = baseURLFor(host: configuration.host, port: channel.localAddress?.port ?? configuration.port)
            state.baseURL = baseURL
            onStarted(baseURL)
        })
        try await application.runService()
    }

    private static func makeApplication(
        _ state: DevBackendState, onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: FaultMiddleware(faults: state.faults, maxHang: state.configuration.maxHang, configuration: state.configuration))
        state.addMobileHubUserRoutes(to: router)
        state.addTokenRoute(to: router)
        state.addExchangeRoute(to: router)
        state.addRevocationRoute(to: router)
        state.addResourceRoutes(to: router)
        state.addMobileFirstRegistrationRoutes(to: router)
        state.addClientAccessRegistrationRoute(to: router)
        state.addClientAccessLogoutRoute(to: router)
        state.addPreauthorizeRoutes(to: router)
        state.addAuthorizationRoutes(to: router)
        state.addCodeTokenRoutes(to: router)
        state.addChallengeResourceRoutes(to: router)
        state.addOpenIDMetadataRoutes(to: router)
        state.addOpenIDAuthorizeRoutes(to: router)
        state.addDeviceAuthorizationRoutes(to: router)
        state.addUserInfoRoute(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(state.configuration.host, port: state.configuration.port), serverName: "coffer-dev-backend"),
            onServerRunning: onServerRunning,
            logger: state.configuration.logger)
    }

    private static func baseURLFor(host: String, port: Int) -> URL {
        URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }
}

/// Why ``DevBackend/start(_:)`` failed.
public enum DevBackendError: Error, Sendable {
    /// The server stopped before it listened.
    case stoppedBeforeStarting
    /// The server did not report its port.
    case noPort
}

/// Hands the listening port (or the failure to listen) to ``DevBackend/start(_:)``, once.
private final class StartSignal: Sendable {
    private let outcome = Guarded<(result: Result<Int, any Error>?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

    func succeed(_ port: Int?) { settle(port.map { .success($0) } ?? .failure(DevBackendError.noPort)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ result: Result<Int, any Error>) {
        let waiter = outcome.withLock { state -> CheckedContinuation<Int, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func port() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let result = outcome.withLock { state -> Result<Int, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
