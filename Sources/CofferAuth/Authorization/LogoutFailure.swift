/// A step of a logout that failed.
public struct LogoutFailure: Sendable, Hashable, CustomStringConvertible {
    /// The steps of a logout, in the order they run.
    public enum Step: String, Sendable, Hashable {
        /// Revoking the access token at the RFC 7009 endpoint.
        case revokeToken
        /// Revoking the refresh token at the RFC 7009 endpoint (OpenID logins).
        case revokeRefreshToken
        /// Removing the stored session from the keychain.
        case removeStoredSession
        /// Logging out at the server after the local step: a MobileFirst client of a security
        /// check (`preauth/v1/logout`), a Mobile Client Access client (`logout`), or an Oracle
        /// Mobile Hub HTTP Basic login (`mobile/platform/users/logout`).
        case serverLogout
    }

    /// The step that failed.
    public let step: Step
    /// Why, without secrets.
    public let reason: String

    public init(step: Step, reason: String) {
        self.step = step
        self.reason = reason
    }

    public var description: String { "\(step.rawValue): \(reason)" }
}
