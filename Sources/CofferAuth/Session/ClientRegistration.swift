import Foundation

/// The client's registration with a MobileFirst or Mobile Client Access server: the id and
/// secret the server issued. It is kept in the keychain, so a restarted app stays the same
/// client (and the server can remember its user). `description` redacts the secret.
package struct ClientRegistration: Sendable, Hashable, Codable {
    let clientID: String
    let clientSecret: String

    /// The token endpoint's client authentication, as for any OAuth client (RFC 6749 §2.3.1).
    func oauthClient(tokenEndpoint: URL) -> OAuthClient {
        OAuthClient(tokenEndpoint: tokenEndpoint, clientID: clientID, clientSecret: clientSecret)
    }
}

extension ClientRegistration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "ClientRegistration(clientID: \(clientID), clientSecret: redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["clientID": clientID]) }
}
