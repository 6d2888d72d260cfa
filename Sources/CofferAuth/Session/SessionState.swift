import Foundation

/// The facade's session in memory.
enum SessionState: Sendable {
    /// The keychain has not been read yet.
    case unloaded
    /// No one is logged in; `otherBackend` when the stored session belongs to another backend.
    case signedOut(otherBackend: Bool)
    /// A user session (HTTP Basic, OAuth or SSO), stored or not.
    case session(StoredSession)
    /// Anonymous access: a client-credentials token, or `nil` for the anonymous key over HTTP Basic.
    case anonymous(AccessToken?)

    /// Whether this is anonymous access.
    var isAnonymous: Bool {
        if case .anonymous = self { return true }
        return false
    }

    /// The current token, if any.
    var token: AccessToken? {
        switch self {
        case .session(let session): session.token
        case .anonymous(let token): token
        case .unloaded, .signedOut: nil
        }
    }

    func status(at now: Date, leeway: TimeInterval, binding: BackendBinding) -> SessionStatus {
        switch self {
        case .unloaded, .signedOut(otherBackend: false):
            return SessionStatus()
        case .signedOut(otherBackend: true):
            return SessionStatus(isBackendMismatch: true)
        case .session(let session):
            return SessionStatus(
                isAuthorized: session.isUsable(at: now, leeway: leeway), isRenewable: session.isRenewable,
                method: session.method, userName: session.userName, tokenExpiresAt: session.token?.expiresAt, backend: binding)
        case .anonymous(let token):
            return SessionStatus(
                isAuthorized: token?.isValid(at: now, leeway: leeway) ?? true, isRenewable: token != nil,
                method: .anonymous, tokenExpiresAt: token?.expiresAt, backend: binding)
        }
    }
}
