import Foundation

/// The development backend's Mobile Client Access authorization server and its custom realm
/// (docs/protocol.md section 9).
public struct ClientAccessConfiguration: Sendable, Hashable {
    /// The tenant (application GUID): the endpoints are under
    /// `/imf-authserver/authorization/v1/apps/{tenant}/`. Default: `coffer-tenant`.
    public var tenantID: String
    /// The custom realm's name. Default: `customRealm`.
    public var realm: String
    /// How long an access token lasts. Default: 1 hour.
    public var tokenLifetime: TimeInterval
    /// How long an authorization code can be exchanged. Default: 60 s.
    public var codeLifetime: TimeInterval

    /// The default tenant id.
    public static let defaultTenantID = "coffer-tenant"
    /// The default realm name.
    public static let defaultRealm = "customRealm"
    /// The protected resource: `GET /mca/protected`.
    public static let protectedPath = "/mca/protected"

    /// The server with the given values; every one has a default.
    public init(
        tenantID: String = ClientAccessConfiguration.defaultTenantID, realm: String = ClientAccessConfiguration.defaultRealm,
        tokenLifetime: TimeInterval = 3600, codeLifetime: TimeInterval = 60
    ) {
        self.tenantID = tenantID
        self.realm = realm
        self.tokenLifetime = tokenLifetime
        self.codeLifetime = codeLifetime
    }
}
