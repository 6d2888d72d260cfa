import Foundation

/// A user's session as the keychain keeps it: one item, written atomically.
///
/// - HTTP Basic: the user name and password, which every request carries (the login survives
///   a restart).
/// - OAuth: the current token and the refresh token that renews it; never the password, unless
///   the app opted in (``ClientConfiguration/keepsPasswordWithoutRefreshToken``) and the
///   backend gives no refresh token.
/// - SSO exchange: the exchanged token only.
///
/// Format 2 added the refresh token; format 1 sessions (which kept the OAuth password) still
/// load, and their password is dropped as soon as a refresh token is held.
/// `description` redacts the password and the tokens.
struct StoredSession: Sendable, Hashable, Codable {
    /// The version of this encoding.
    var format = 2
    /// The backend the session belongs to.
    var binding: BackendBinding
    var method: AuthenticationMethod
    var userName: String?
    /// Present for HTTP Basic logins; for OAuth only by opt-in, while no refresh token is held.
    var password: String?
    /// Present for OAuth and SSO sessions.
    var token: AccessToken?
    /// The OAuth refresh token, when the backend gave one.
    var refreshToken: String? = nil

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

    /// Whether an expired token can be renewed without the user: an OAuth login with a refresh
    /// token, or (by opt-in, or from an older Coffer) its password.
    var isRenewable: Bool { method == .oauth && (refreshToken != nil || basicCredentials != nil) }

    /// A session with no password and no token: only the remembered user name.
    var isSignedOut: Bool { password == nil && token == nil && refreshToken == nil }
}

extension StoredSession: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String {
        "StoredSession(\(method.rawValue), user: \(userName ?? "none"), backend: \(binding), "
            + "password: \(password == nil ? "none" : "redacted"), token: \(token.map(\.description) ?? "none"), "
            + "refresh token: \(refreshToken == nil ? "none" : "redacted"))"
    }

    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
