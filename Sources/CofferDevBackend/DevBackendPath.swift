import CofferAuth

/// The paths the development backend serves (docs/protocol.md).
package enum DevBackendPath {
    package static let basicCheck = "/" + BasicCheck.path
    package static let exchange = "/" + OMCTokenExchange.path
    package static let token = "/oauth2/v1/token"
    package static let revocation = "/oauth2/v1/revoke"
    package static let protected = "/protected"
    package static let anonymous = "/anonymous"

    /// The fault endpoint a request path belongs to.
    static func endpoint(of path: String) -> FaultEndpoint? {
        switch path {
        case token: .token
        case exchange: .exchange
        case basicCheck: .basicCheck
        case revocation: .revocation
        case protected, anonymous: .resource
        default: nil
        }
    }
}
