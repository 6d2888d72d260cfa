import AsyncHTTPClient
import Foundation
import Logging

/// The policies of every login client: ``Authorization``, ``ChallengeClient`` and
/// ``OpenIDClient`` take this one configuration (each also names it `Configuration`). The
/// defaults suit an app; tests shorten the timeouts and inject a clock. A few fields concern one
/// kind of client only, and say so.
public struct ClientConfiguration: Sendable {
    /// Tokens count as expired this long before their expiry (capped at half their lifetime),
    /// and ID-token times may be off by this much. Default: 60 s.
    public var clockSkewLeeway: Duration
    /// How long a token lasts when the server gives no `expires_in`. Default `nil`: 6 hours for
    /// a mobile backend (Oracle Mobile Hub's `Security_TokenExchangeTimeoutSecs` policy), 1 hour
    /// for the others.
    public var defaultTokenLifetime: Duration?
    /// The deadline for one exchange with the server, body included. Default: 30 s.
    public var requestTimeout: Duration
    /// The largest reply body read. Default: 1 MiB.
    public var maxResponseBytes: Int
    /// How long a login waits for its user: the browser's redirect, a device approval, or a
    /// challenge handler's answer. Default: 5 minutes.
    public var loginTimeout: Duration
    /// The most authorization rounds (challenges answered, then sent again) for one token
    /// before ``AuthError/tooManyChallengeRounds(check:)``. Challenge clients only. Default: 10.
    public var maxChallengeRounds: Int
    /// How long a refresh waits for another process that is refreshing the same session.
    /// Default: 60 s.
    public var refreshLockTimeout: Duration
    /// The folder of the lock files that make refreshes single-flight across processes.
    /// Default `nil`: `locks` in Coffer's `RuntimeFolder` (`$XDG_RUNTIME_DIR/coffer/locks`, else
    /// `~/.local/state/coffer/run/locks`; mode 0700).
    public var lockFolder: URL?
    /// The store account the session is kept under. Default `nil`: `session` for a mobile
    /// backend, one account per server for a challenge client. OpenID logins are kept per
    /// issuer, client id and profile instead.
    public var sessionAccount: String?
    /// Whether a mobile backend's OAuth login keeps the user's password to renew its token when
    /// the backend returns no refresh token. Default `false`: such a session ends with its token
    /// and the user logs in again. A refresh token is always kept instead of a password.
    public var keepsPasswordWithoutRefreshToken: Bool
    /// Where OpenID browser logins listen for the redirect: a fixed URI for providers that match
    /// redirect URIs exactly. Default `nil`: a random port of 127.0.0.1, at `/callback`.
    public var redirectURI: LoopbackRedirectURI?
    /// Whether credentials and tokens may go over plain HTTP to a host that is not loopback.
    /// Default `false`: every such request is refused with ``AuthError/invalidRequest(reason:)``
    /// before any connection (``TransportSecurity``); when `true`, each one logs a warning.
    public var allowInsecureHTTP: Bool
    /// The clock that decides expiry.
    public var now: @Sendable () -> Date
    /// How a device login waits between polls; tests replace it to run without waiting.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Where the client logs. It never logs passwords, answers, tokens, codes or secrets.
    public var logger: Logger

    /// Policies with the given values; every one has a default.
    public init(
        clockSkewLeeway: Duration = .seconds(60),
        defaultTokenLifetime: Duration? = nil,
        requestTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 1 << 20,
        loginTimeout: Duration = .seconds(300),
        maxChallengeRounds: Int = 10,
        refreshLockTimeout: Duration = .seconds(60),
        lockFolder: URL? = nil,
        sessionAccount: String? = nil,
        keepsPasswordWithoutRefreshToken: Bool = false,
        redirectURI: LoopbackRedirectURI? = nil,
        allowInsecureHTTP: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        logger: Logger = Logger(label: "coffer.auth")
    ) {
        self.clockSkewLeeway = clockSkewLeeway
        self.defaultTokenLifetime = defaultTokenLifetime
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
        self.loginTimeout = loginTimeout
        self.maxChallengeRounds = maxChallengeRounds
        self.refreshLockTimeout = refreshLockTimeout
        self.lockFolder = lockFolder
        self.sessionAccount = sessionAccount
        self.keepsPasswordWithoutRefreshToken = keepsPasswordWithoutRefreshToken
        self.redirectURI = redirectURI
        self.allowInsecureHTTP = allowInsecureHTTP
        self.now = now
        self.sleep = sleep
        self.logger = logger
    }

    /// ``clockSkewLeeway`` in seconds, as dates count.
    var leeway: TimeInterval { clockSkewLeeway.timeInterval }

    /// ``defaultTokenLifetime`` in seconds, or `fallback` when it is `nil`.
    func tokenLifetime(else fallback: TimeInterval) -> TimeInterval {
        defaultTokenLifetime?.timeInterval ?? fallback
    }

    /// The transport every request of the client goes through.
    func transport(_ client: HTTPClient) -> HTTPTransport {
        HTTPTransport(client: client, timeout: requestTimeout, maxBodyBytes: maxResponseBytes, allowsInsecureHTTP: allowInsecureHTTP, logger: logger)
    }
}

extension Duration {
    /// The duration in seconds, as `Date` arithmetic takes it.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
