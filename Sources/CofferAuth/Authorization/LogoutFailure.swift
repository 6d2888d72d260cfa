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
        /// Logging the client out of a security check at the server (MobileFirst's
        /// `preauth/v1/logout`), after its tokens were forgotten locally.
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
