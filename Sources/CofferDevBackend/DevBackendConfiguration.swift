import Foundation
import Logging

extension DevBackend {
    /// What the development backend accepts and how long its tokens last.
    public struct Configuration: Sendable {
        /// The address to listen on. Default: 127.0.0.1.
        public var host: String
        /// The port; 0 picks a free one. Default: 0.
        public var port: Int
        /// The backend id every call must carry. Default: ``defaultBackendID``.
        public var backendID: String
        /// Users and their passwords. Default: ``defaultUser``.
        public var users: [String: String]
        /// OAuth clients and their secrets. Default: ``defaultClient``.
        public var clients: [String: String]
        /// Third-party tokens accepted by the SSO exchange, and the user each one names.
        public var ssoTokens: [String: String]
        /// How long access tokens from the token endpoint last. Default: 1 hour.
        public var tokenLifetime: TimeInterval
        /// How long access tokens from a `refresh_token` grant last, when not ``tokenLifetime``:
        /// a test whose first token expires soon can have the refreshed one stay valid for as long
        /// as the test runs, however slowly. Default: `nil` (``tokenLifetime``).
        public var refreshedTokenLifetime: TimeInterval?
        /// How long exchanged SSO tokens last. Default: 6 hours, like OMC's policy.
        public var exchangeTokenLifetime: TimeInterval
        /// How long a refresh token lasts after it is issued (each rotation issues a new one).
        /// Default: 30 days.
        public var refreshTokenLifetime: TimeInterval
        /// Whether replies carry `expires_in`. Turn it off to test the client's default lifetime.
        public var advertisesLifetime: Bool
        /// Whether the password grant's reply carries a refresh token (RFC 6749 §4.3.3 makes it
        /// optional). Default: `true`. Turn it off to test a client facing a server without one.
        public var passwordGrantIssuesRefreshTokens = true
        /// The clock that decides expiry.
        public var now: @Sendable () -> Date
        /// The longest a ``Fault/hang`` or ``Fault/stallBody(prefix:)`` waits. Default: 30 s.
        public var maxHang: Duration
        /// Where the server logs: one line per request, never a credential.
        public var logger: Logger
        /// The MobileFirst 8 runtime: `UserLogin`, `PinCodeAttempts` and their resources.
        /// `UserLogin` accepts any user whose name equals the password.
        public var mobileFirst: MobileFirstConfiguration
        /// The Mobile Client Access authorization server and its custom realm, which accepts
        /// the ``users``.
        public var clientAccess: ClientAccessConfiguration
        /// The OpenID provider at `/oidc`: its clients, test switches and lifetimes. Its users
        /// are ``users``; its access tokens last ``tokenLifetime``.
        public var openID: OpenIDProviderConfiguration

        /// The default backend id.
        public static let defaultBackendID = "coffer-dev"
        /// The default user, also the OpenID provider's and the MCA realm's.
        public static let defaultUser = (name: "demo", password: "demo-password")
        /// The default OAuth client (HTTP Basic).
        public static let defaultClient = (id: "coffer-cli", secret: "coffer-cli-secret")
        /// The default third-party token of the SSO exchange, and its user.
        public static let defaultSSOToken = (token: "demo-third-party-token", user: "demo")

        /// A configuration with the given values; every one has a default.
        public init(
            host: String = "127.0.0.1", port: Int = 0, backendID: String = Configuration.defaultBackendID,
            users: [String: String] = [Configuration.defaultUser.name: Configuration.defaultUser.password],
            clients: [String: String] = [Configuration.defaultClient.id: Configuration.defaultClient.secret],
            ssoTokens: [String: String] = [Configuration.defaultSSOToken.token: Configuration.defaultSSOToken.user],
            tokenLifetime: TimeInterval = 3600, exchangeTokenLifetime: TimeInterval = 6 * 3600,
            advertisesLifetime: Bool = true, now: @escaping @Sendable () -> Date = { Date() },
            maxHang: Duration = .seconds(30), logger: Logger = Logger(label: "coffer.dev-backend"),
            mobileFirst: MobileFirstConfiguration = MobileFirstConfiguration(),
            clientAccess: ClientAccessConfiguration = ClientAccessConfiguration(),
            refreshTokenLifetime: TimeInterval = 30 * 86400, openID: OpenIDProviderConfiguration = OpenIDProviderConfiguration()
        ) {
            self.host = host
            self.port = port
            self.backendID = backendID
            self.users = users
            self.clients = clients
            self.ssoTokens = ssoTokens
            self.tokenLifetime = tokenLifetime
            self.exchangeTokenLifetime = exchangeTokenLifetime
            self.advertisesLifetime = advertisesLifetime
            self.now = now
            self.maxHang = maxHang
            self.logger = logger
            self.mobileFirst = mobileFirst
            self.clientAccess = clientAccess
            self.refreshTokenLifetime = refreshTokenLifetime
            self.openID = openID
        }
    }
}
