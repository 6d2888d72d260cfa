import Foundation

/// How a development security check counts attempts and how long its states last, like the
/// properties of MobileFirst's `CredentialsValidationSecurityCheck` (`maxAttempts`,
/// `blockedStateExpirationSec`, `successStateExpirationSec`, `rememberMeDurationSec`).
public struct SecurityCheckPolicy: Sendable, Hashable {
    /// Wrong answers allowed before the check blocks the client.
    public var maxAttempts: Int
    /// How long the client stays blocked, in seconds.
    public var blockedFor: TimeInterval
    /// How long a success lasts, in seconds.
    public var successLasts: TimeInterval
    /// How long a success with `rememberMe: true` lasts, in seconds; `nil` when the check
    /// offers no remember-me.
    public var rememberMeLasts: TimeInterval?

    /// A policy with the given values.
    public init(maxAttempts: Int = 3, blockedFor: TimeInterval, successLasts: TimeInterval = 60, rememberMeLasts: TimeInterval? = nil) {
        self.maxAttempts = maxAttempts
        self.blockedFor = blockedFor
        self.successLasts = successLasts
        self.rememberMeLasts = rememberMeLasts
    }
}
