import AsyncHTTPClient
import Foundation
import Logging

extension OpenIDClient {
    /// An OpenID client's policies. The defaults suit an app; tests shorten the timeouts and
    /// inject a clock.
    public struct Configuration: Sendable {
        /// Access tokens count as expired this long before their expiry (capped at half their
        /// lifetime), and ID-token times may be off by this much. Default: 60 s.
        public var clockSkewLeeway: TimeInterval
        /// How long an access token lasts when the provider gives no `expires_in`. Default: 1 hour.
        public var defaultTokenLifetime: TimeInterval
        /// The deadline for one exchange with the provider, body included. Default: 30 s.
        public var requestTimeout: Duration
        /// The largest reply body read. Default: 1 MiB.
        public var maxResponseBytes: Int
        /// How long a login waits for the browser's redirect or the device's approval. Default: 5 minutes.
        public var loginTimeout: Duration
        /// How long a refresh waits for another process that is refreshing the same session. Default: 60 s.
        public var refreshLockTimeout: Duration
        /// The folder of the lock files that make refreshes single-flight across processes.
        /// Default: `locks` in Coffer's `RuntimeFolder` (`$XDG_RUNTIME_DIR/coffer/locks`, else
        /// `~/.local/state/coffer/run/locks`; mode 0700).
        public var lockFolder: URL?
        /// Whether tokens may go over plain HTTP to a host that is not loopback (``TransportSecurity``).
        public var allowInsecureHTTP: Bool
        /// The clock that decides expiry.
        public var now: @Sendable () -> Date
        /// How the device flow waits between polls; tests replace it to run without waiting.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// Where the client logs. It never logs tokens, codes or secrets.
        public var logger: Logger

        /// Policies with the given values; every one has a default.
        public init(
            clockSkewLeeway: TimeInterval = 60,
            defaultTokenLifetime: TimeInterval = 3600,
            requestTimeout: Duration = .seconds(30),
            maxResponseBytes: Int = 1 << 20,
            loginTimeout: Duration = .seconds(300),
            refreshLockTimeout: Duration = .seconds(60),
            lockFolder: URL? = nil,
            allowInsecureHTTP: Bool = false,
            now: @escaping @Sendable () -> Date = { Date() },
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            logger: Logger = Logger(label: "coffer.openid")
        ) {
            self.clockSkewLeeway = clockSkewLeeway
            self.defaultTokenLifetime = defaultTokenLifetime
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.loginTimeout = loginTimeout
            self.refreshLockTimeout = refreshLockTimeout
            self.lockFolder = lockFolder
            self.allowInsecureHTTP = allowInsecureHTTP
            self.now = now
            self.sleep = sleep
            self.logger = logger
        }

        func transport(_ client: HTTPClient) -> HTTPTransport {
            HTTPTransport(
                client: client, timeout: requestTimeout, maxBodyBytes: maxResponseBytes,
                allowsInsecureHTTP: allowInsecureHTTP, logger: logger)
        }
    }
}
