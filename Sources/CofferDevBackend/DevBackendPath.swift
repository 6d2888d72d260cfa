import CofferAuth

/// The paths the development backend serves (docs/protocol.md).
package enum DevBackendPath {
    package static let basicCheck = "/" + BasicCheck.path
    package static let exchange = "/" + OMCTokenExchange.path
    package static let token = "/oauth2/v1/token"
    package static let revocation = "/oauth2/v1/revoke"
    package static let protected = "/protected"
    package static let anonymous = "/anonymous"
    /// Where the MCA authorization server lives, below the base URL (the client's default).
    package static let clientAccessServer = "/imf-authserver"

    /// A MobileFirst endpoint or resource: `/{runtime}/{path}`.
    package static func mobileFirst(_ path: String, _ configuration: MobileFirstConfiguration) -> String {
        "/\(configuration.runtime)/\(path)"
    }

    /// An MCA authorization-server endpoint: `/imf-authserver/authorization/v1/apps/{tenant}/{path}`.
    package static func clientAccess(_ path: String, _ configuration: ClientAccessConfiguration) -> String {
        "\(clientAccessServer)/\(ClientAccessPath.apps)/\(configuration.tenantID)/\(path)"
    }

    /// The fault endpoint a request path belongs to.
    static func endpoint(of path: String, in configuration: DevBackend.Configuration) -> FaultEndpoint? {
        switch path {
        case token: return .token
        case exchange: return .exchange
        case basicCheck: return .basicCheck
        case revocation: return .revocation
        case protected, anonymous, ClientAccessConfiguration.protectedPath: return .resource
        case OpenID.discovery, OpenID.serverMetadata, OpenID.appendedServerMetadata: return .openIDDiscovery
        case OpenID.jwks: return .jwks
        case OpenID.authorize: return .openIDAuthorization
        case OpenID.device: return .deviceAuthorization
        case OpenID.userinfo: return .userinfo
        default: break
        }
        let challengePaths = [
            MobileFirstPath.registration, MobileFirstPath.preauthorize, MobileFirstPath.logout,
            MobileFirstPath.authorization, MobileFirstPath.token,
        ].map { mobileFirst($0, configuration.mobileFirst) }
            + [ClientAccessPath.registration, ClientAccessPath.authorization, ClientAccessPath.token].map { clientAccess($0, configuration.clientAccess) }
        if challengePaths.contains(path) { return .challenges }
        if MobileFirstConfiguration.resources.contains(where: { mobileFirst($0.name, configuration.mobileFirst) == path }) { return .resource }
        return nil
    }
}
