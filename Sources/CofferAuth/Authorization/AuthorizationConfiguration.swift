import Foundation
import Logging

extension Authorization {
    /// The facade's policies. The defaults suit an app; tests shorten the timeouts and inject a clock.
    public struct Configuration: Sendable {
        /// How long a token lasts when the server gives no `expires_in`. Default: 6 hours,
        /// like OMC's `Security_TokenExchangeTimeoutSecs` policy.
        public var tokenExchangeTimeout: TimeInterval
        /// Tokens count as expired this long before their expiry, to allow for clock skew
        /// (capped at half a token's lifetime). Default: 30 s.
        public var clockSkewLeeway: TimeInterval
        /// The deadline for one exchange with the backend, body included. Default: 30 s.
        public var requestTimeout: Duration
        /// The largest reply body read. Default: 1 MiB.
        public var maxResponseBytes: Int
        /// The keychain account the session is stored under. Default: `session`.
        public var sessionAccount: String
        /// The clock that decides expiry.
        public var now: @Sendable () -> Date
        /// Where the facade logs. It never logs secrets.
        public var logger: Logger
        /// Whether an OAuth login keeps the user's password to renew its token when the backend
        /// returns no refresh token. Default: `false`: such a session ends with its token and the
        /// user logs in again. A refresh token is always kept instead of a password when given.
        public var keepsPasswordWithoutRefreshToken: Bool
        /// How long a renewal waits for another process that is renewing the same session. Default: 60 s.
        public var refreshLockTimeout: Duration
        /// The folder of the lock files that make renewals single-flight across processes
        /// (default: the `locks` folder of Coffer's `RuntimeFolder`).
        public var refreshLockFolder: URL?
        /// Whether credentials and tokens may go over plain HTTP to a host that is not loopback.
        /// Default: `false`, and every such request is refused with ``AuthError/invalidRequest(reason:)``
        /// before any connection (``TransportSecurity``). When `true`, each one logs a warning.
        public var allowInsecureHTTP: Bool

        public init(
            tokenExchangeTimeout: TimeInterval = 6 * 3600,
            clockSkewLeeway: TimeInterval = 30,
            requestTimeout: Duration = .seconds(30),
            maxResponseBytes: Int = 1 << 20,
            sessionAccount: String = "session",
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger = Logger(label: "coffer.auth"),
            keepsPasswordWithoutRefreshToken: Bool = false,
            refreshLockTimeout: Duration = .seconds(60),
            refreshLockFolder: URL? = nil,
            allowInsecureHTTP: Bool = false
        ) {
            self.tokenExchangeTimeout = tokenExchangeTimeout
            self.clockSkewLeeway = clockSkewLeeway
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.sessionAccount = sessionAccount
            self.now = now
            self.logger = logger
            self.keepsPasswordWithoutRefreshToken = keepsPasswordWithoutRefreshToken
            self.refreshLockTimeout = refreshLockTimeout
            self.refreshLockFolder = refreshLockFolder
            self.allowInsecureHTTP = allowInsecureHTTP
        }
    }
}
