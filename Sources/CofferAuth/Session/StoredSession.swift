import Foundation

/// A user's session as the keychain keeps it: one item, written atomically.
///
/// - HTTP Basic: the user name and password (the login survives a restart).
/// - OAuth: the user name and password, which renew an expired token (OMC has no refresh
///   tokens), and the current token.
/// - SSO exchange: the exchanged token only.
///
/// `description` redacts the password and the token.
struct StoredSession: Sendable, Hashable, Codable {
    /// The version of this encoding.
    var format = 1
    /// The backend the session belongs to.
    var binding: BackendBinding
    var method: AuthenticationMethod
    var userName: String?
    /// Present for HTTP Basic and OAuth password logins, until logout.
    var password: String?
    /// Present for OAuth and SSO sessions.
    var token: AccessToken?

    /// The credentials for HTTP Basic, when the session has them.
    var basicCredentials: BasicCredentials? {
        guard let userName, let password else { return nil }
        return BasicCredentials(user: userName, password: password)
    }

    /// Whether the session can produce an `Authorization` header at `now` without the network.
    func isUsable(at now: Date, leeway: TimeInterval) -> Bool {
        switch method {
        case .httpBasic: password != nil
        case .oauth, .ssoExchange, .anonymous: token?.isValid(at: now, leeway: leeway) ?? false
        }
    }

    /// Whether an expired token can be renewed without the user: an OAuth login with its password.
    var isRenewable: Bool { method == .oauth && basicCredentials != nil }

    /// A session with no password and no token: only the remembered user name.
    var isSignedOut: Bool { password == nil && token == nil }
}

extension StoredSession: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String {
        "StoredSession(\(method.rawValue), user: \(userName ?? "none"), backend: \(binding), "
            + "password: \(password == nil ? "none" : "redacted"), token: \(token.map(\.description) ?? "none"))"
    }

    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
