/// The paths the development backend serves (docs/protocol.md). They are the backend's own
/// constants, written from the vendors' documentation and SDKs, not the client's: a wrong path in
/// CofferAuth is not mirrored here.
package enum DevBackendPath {
    /// Oracle Mobile Hub's HTTP Basic login check.
    package static let basicCheck = "/mobile/platform/users/login"
    /// Oracle Mobile Hub's current user (`~`).
    package static let currentUser = "/mobile/platform/users/~"
    /// Oracle Mobile Hub's HTTP Basic logout.
    package static let userLogout = "/mobile/platform/users/logout"
    package static let exchange = "/mobile/platform/sso/exchange-token"
    package static let token = "/oauth2/v1/token"
    package static let revocation = "/oauth2/v1/revoke"
    package static let protected = "/protected"
    package static let anonymous = "/anonymous"
    /// Where the MCA authorization server lives, below the base URL (the client's default).
    package static let clientAccessServer = "/imf-authserver"

    /// A MobileFirst 8 runtime's API endpoints, below `/{runtime}/api/`.
    package enum MobileFirst {
        package static let registration = "registration/v1/self"
        /// Where a registered client lives: the registration's `Location` (no `v1`, as the Android SDK expects).
        package static let registeredClients = "registration/clients"
        package static let preauthorize = "preauth/v1/preauthorize"
        package static let logout = "preauth/v1/logout"
        package static let authorization = "az/v1/authorization"
        package static let token = "az/v1/token"
    }

    /// A Mobile Client Access authorization server's endpoints, below
    /// `/imf-authserver/authorization/v1/apps/{tenant}/`.
    package enum ClientAccess {
        package static let apps = "authorization/v1/apps"
        package static let registration = "clients/instance"
        package static let authorization = "authorization"
        package static let token = "token"
        package static let logout = "logout"
    }

    /// A MobileFirst resource: `/{runtime}/{path}`.
    package static func mobileFirst(_ path: String, _ configuration: MobileFirstConfiguration) -> String {
        "/\(configuration.runtime)/\(path)"
    }

    /// A MobileFirst API endpoint: `/{runtime}/api/{path}`.
    package static func mobileFirstAPI(_ path: String, _ configuration: MobileFirstConfiguration) -> String {
        "/\(configuration.runtime)/api/\(path)"
    }

    /// An MCA authorization-server endpoint: `/imf-authserver/authorization/v1/apps/{tenant}/{path}`.
    package static func clientAccess(_ path: String, _ configuration: ClientAccessConfiguration) -> String {
        "\(clientAccessServer)/\(ClientAccess.apps)/\(configuration.tenantID)/\(path)"
    }

    /// The fault endpoint a request path belongs to.
    static func endpoint(of path: String, in configuration: DevBackend.Configuration) -> FaultEndpoint? {
        switch path {
        case token: return .token
        case exchange: return .exchange
        case basicCheck, currentUser, userLogout: return .basicCheck
        case revocation: return .revocation
        case protected, anonymous, ClientAccessConfiguration.protectedPath: return .resource
        case OpenID.discovery, OpenID.serverMetadata, OpenID.appendedServerMetadata: return .openIDDiscovery
        case OpenID.jwks: return .jwks
        case OpenID.authorize: return .openIDAuthorization
        case OpenID.device: return .deviceAuthorization
        case OpenID.userinfo: return .userinfo
        default: break
        }
        if path.hasPrefix(mobileFirstAPI("", configuration.mobileFirst)) { return .challenges }
        if path.hasPrefix(clientAccess("", configuration.clientAccess)) { return .challenges }
        if MobileFirstConfiguration.resources.contains(where: { mobileFirst($0.name, configuration.mobileFirst) == path }) { return .resource }
        return nil
    }
}
