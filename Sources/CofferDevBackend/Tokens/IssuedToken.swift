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
    }

    let subject: Subject
    let origin: Origin
    /// The client it was issued to; `nil` for OMC's exchange, which has no client.
    let clientID: String?
    let expiresAt: Date
    var revoked = false

    var userName: String? {
        if case .user(let name) = subject { return name }
        return nil
    }
}
