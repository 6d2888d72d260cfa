import Foundation

/// An OAuth client's endpoint and credentials, as the token and revocation calls need them.
struct OAuthClient: Sendable {
    let tokenEndpoint: URL
    let clientID: String
    let clientSecret: String

    /// `Authorization: Basic …` for the client (RFC 6749 §2.3.1: each part form-encoded first).
    var authorizationHeader: String {
        BasicCredentials(user: FormEncoding.escape(clientID), password: FormEncoding.escape(clientSecret)).headerValue
    }
}
