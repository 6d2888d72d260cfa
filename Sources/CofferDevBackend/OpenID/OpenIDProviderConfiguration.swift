import Foundation

/// The development backend's OpenID provider (docs/protocol.md section 12): its clients, the
/// test switches, and how long its codes and tokens last. Users are the backend's
/// ``DevBackend/Configuration/users``; expiry follows ``DevBackend/Configuration/now``.
public struct OpenIDProviderConfiguration: Sendable, Hashable {
    /// The clients. Default: ``OpenIDClientRegistration/native`` and
    /// ``OpenIDClientRegistration/confidential``.
    public var clients: [OpenIDClientRegistration]
    /// A test switch: when set, the authorization endpoint approves every valid request at once
    /// as this user, with no login form. Default: `nil` (the form is shown).
    public var autoApproveUser: String?
    /// A test switch: serve `POST /oidc/device/approve`, which approves or denies a user code for
    /// a named user without a password. Default: `false` (the endpoint answers 404).
    public var deviceApprovalEndpoint: Bool
    /// How long an authorization code can be exchanged. Default: 60 s.
    public var codeLifetime: TimeInterval
    /// How long a device code lasts (`expires_in`). Default: 600 s.
    public var deviceCodeLifetime: TimeInterval
    /// The device flow's polling interval in seconds (`interval`); a poll sooner than this after
    /// the previous one gets `slow_down` and adds 5 s. Default: 5.
    public var deviceInterval: Int
    /// How long ID tokens last. Default: 1 hour.
    public var idTokenLifetime: TimeInterval
    /// The scopes the provider knows; a request for another gets `invalid_scope`.
    public var scopes: [String]

    /// The scopes known by default: `openid profile email offline_access`.
    public static let defaultScopes = ["openid", "profile", "email", "offline_access"]

    /// The provider with the given values; every one has a default.
    public init(
        clients: [OpenIDClientRegistration] = [.native, .confidential], autoApproveUser: String? = nil,
        deviceApprovalEndpoint: Bool = false, codeLifetime: TimeInterval = 60, deviceCodeLifetime: TimeInterval = 600,
        deviceInterval: Int = 5, idTokenLifetime: TimeInterval = 3600, scopes: [String] = OpenIDProviderConfiguration.defaultScopes
    ) {
        self.clients = clients
        self.autoApproveUser = autoApproveUser
        self.deviceApprovalEndpoint = deviceApprovalEndpoint
        self.codeLifetime = codeLifetime
        self.deviceCodeLifetime = deviceCodeLifetime
        self.deviceInterval = deviceInterval
        self.idTokenLifetime = idTokenLifetime
        self.scopes = scopes
    }

    /// The client with this id.
    public func client(_ id: String) -> OpenIDClientRegistration? {
        clients.first { $0.id == id }
    }
}
