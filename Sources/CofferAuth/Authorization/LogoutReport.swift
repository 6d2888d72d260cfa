/// What a logout did (``AuthorizationClient/logout()``).
public struct LogoutReport: Sendable, Hashable {
    /// Whether the token was revoked at the backend. `false` when there was nothing to revoke
    /// or the backend offers no revocation endpoint.
    public var revoked: Bool
    /// Whether a stored session was removed from the keychain.
    public var removedStoredSession: Bool
    /// Whether the remembered user name was kept (`clearCredentials: false`).
    public var keptUserName: Bool
    /// Whether the server ended the login too: an HTTP Basic login at the mobile backend
    /// (`mobile/platform/users/logout`), or a challenge client at its server.
    public var loggedOutAtBackend: Bool

    public init(revoked: Bool = false, removedStoredSession: Bool = false, keptUserName: Bool = false, loggedOutAtBackend: Bool = false) {
        self.revoked = revoked
        self.removedStoredSession = removedStoredSession
        self.keptUserName = keptUserName
        self.loggedOutAtBackend = loggedOutAtBackend
    }
}
