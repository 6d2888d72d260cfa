import Foundation

/// A snapshot of the facade's session, for display and scripts.
public struct SessionStatus: Sendable, Hashable, Codable {
    /// Whether a request can be authorized now without the network.
    public var isAuthorized = false
    /// Whether an expired token renews without the user (OAuth with stored credentials, or anonymous).
    public var isRenewable = false
    /// Whether the stored session belongs to another backend or backend version.
    public var isBackendMismatch = false
    /// How the session was established; `nil` when logged out.
    public var method: AuthenticationMethod?
    /// The user's name, for HTTP Basic and OAuth logins.
    public var userName: String?
    /// When the current token expires.
    public var tokenExpiresAt: Date?
    /// The backend the session belongs to; `nil` when logged out.
    public var backend: BackendBinding?

    /// Whether the token has expired and the stored session renews it without the user: the
    /// next request refreshes it.
    public var needsRefresh: Bool { !isAuthorized && isRenewable }
    /// Whether no request can be authorized until the user logs in again.
    public var needsLogin: Bool { !isAuthorized && !isRenewable }

    public init(
        isAuthorized: Bool = false, isRenewable: Bool = false, isBackendMismatch: Bool = false,
        method: AuthenticationMethod? = nil, userName: String? = nil, tokenExpiresAt: Date? = nil, backend: BackendBinding? = nil
    ) {
        self.isAuthorized = isAuthorized
        self.isRenewable = isRenewable
        self.isBackendMismatch = isBackendMismatch
        self.method = method
        self.userName = userName
        self.tokenExpiresAt = tokenExpiresAt
        self.backend = backend
    }
}
