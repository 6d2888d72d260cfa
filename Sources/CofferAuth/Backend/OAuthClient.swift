import Foundation

/// An OAuth client's endpoint and credentials, as the token and revocation calls need them.
struct OAuthClient: Sendable {
    let tokenEndpoint: URL
    let clientID: String
    let clientSecret: String

    var credentials: ClientCredentials { ClientCredentials(id: clientID, secret: clientSecret) }

    /// `Authorization: Basic …` for the client (RFC 6749 §2.3.1).
    var authorizationHeader: String { credentials.authorizationHeader ?? "" }
}
