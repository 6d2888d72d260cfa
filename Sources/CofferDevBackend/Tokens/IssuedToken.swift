import Foundation

/// A token the development backend issued.
struct IssuedToken: Sendable {
    /// Who the token stands for.
    enum Subject: Sendable, Hashable {
        case user(String)
        case client(String)
    }

    /// How it was obtained, as `/protected` reports it.
    enum Origin: String, Sendable {
        case oauth, sso, clientCredentials = "client_credentials"
        /// MobileFirst's code flow, after its security checks.
        case mobileFirst = "mobilefirst"
        /// Mobile Client Access's code flow, after its realm.
        case clientAccess = "mca"
        /// The OpenID provider: authorization code, device code, or their refreshes.
        case openID = "openid"
    }

    let subject: Subject
    let origin: Origin
    /// The client it was issued to; `nil` for OMC's exchange, which has no client.
    let clientID: String?
    let expiresAt: Date
    /// The scope elements (MobileFirst security checks, OAuth scopes) it was granted for.
    var scope: Set<String> = []
    /// The refresh-token family it came from: revoking the family revokes it too.
    var family: String?
    /// MCA: the ID token issued with it, which resources may get beside it.
    var idToken: String?
    var revoked = false

    var userName: String? {
        if case .user(let name) = subject { return name }
        return nil
    }
}
