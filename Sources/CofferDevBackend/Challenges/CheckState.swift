import Foundation

/// One security check's state for one client, as a `CredentialsValidationSecurityCheck` keeps it.
struct CheckState: Sendable {
    /// Wrong answers left before the check blocks; `nil` until the first challenge.
    var remainingAttempts: Int?
    /// Blocked until then.
    var blockedUntil: Date?
    /// Satisfied until then (the success, or remember-me).
    var satisfiedUntil: Date?
    /// What the success sends: `{"user": …}` for `UserLogin`, `{}` otherwise.
    var success: JSON = [:]
    /// The user `UserLogin` authenticated.
    var user: String?

    /// Whether the check is satisfied at `now`.
    func isSatisfied(at now: Date) -> Bool {
        satisfiedUntil.map { now < $0 } ?? false
    }
}
