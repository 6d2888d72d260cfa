import Foundation
import Logging

extension ChallengeClient {
    /// A challenge client's policies. The defaults suit an app; tests shorten the timeouts and
    /// inject a clock.
    public struct Configuration: Sendable {
        /// How long Coffer waits for a handler to answer a challenge before failing every
        /// request that needs it with ``AuthError/challengeTimeout(check:)``. Default: 5 minutes.
        public var challengeTimeout: Duration
        /// The most authorization rounds (challenges answered, then sent again) for one token
        /// before ``AuthError/tooManyChallengeRounds(check:)``. Default: 10.
        public var maxChallengeRounds: Int
        /// How long a token lasts when the server gives no `expires_in`. Default: 1 hour.
        public var defaultTokenLifetime: TimeInterval
        /// Tokens count as expired this long before their expiry (capped at half their
        /// lifetime). Default: 30 s.
        public var clockSkewLeeway: TimeInterval
        /// The deadline for one exchange with the server, body included. Default: 30 s.
        public var requestTimeout: Duration
        /// The largest reply body read. Default: 1 MiB.
        public var maxResponseBytes: Int
        /// The keychain account the registration and tokens are stored under. Default: one
        /// account per server (`challenges <server>`).
        public var sessionAccount: String?
        /// The clock that decides expiry.
        public var now: @Sendable () -> Date
        /// Where the client logs. It never logs answers, secrets or tokens.
        public var logger: Logger
        /// Whether answers, secrets and tokens may go over plain HTTP to a host that is not
        /// loopback. Default: `false` (refused before any connection, ``TransportSecurity``);
        /// when `true`, each such request logs a warning.
        public var allowInsecureHTTP: Bool

        /// Policies with the given values; every one has a default.
        public init(
            challengeTimeout: Duration = .seconds(300),
            maxChallengeRounds: Int = 10,
            defaultTokenLifetime: TimeInterval = 3600,
            clockSkewLeeway: TimeInterval = 30,
            requestTimeout: Duration = .seconds(30),
            maxResponseBytes: Int = 1 << 20,
            sessionAccount: String? = nil,
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger = Logger(label: "coffer.challenges"),
            allowInsecureHTTP: Bool = false
        ) {
            self.challengeTimeout = challengeTimeout
            self.maxChallengeRounds = maxChallengeRounds
            self.defaultTokenLifetime = defaultTokenLifetime
            self.clockSkewLeeway = clockSkewLeeway
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.sessionAccount = sessionAccount
            self.now = now
            self.logger = logger
            self.allowInsecureHTTP = allowInsecureHTTP
        }
    }
}
