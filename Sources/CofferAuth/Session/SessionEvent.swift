/// A change of a session, as ``AuthorizationClient/events()`` reports it to the app.
public enum SessionEvent: Sendable, Hashable {
    /// A user logged in.
    case loggedIn
    /// The access token was refreshed (and a rotated refresh token stored first).
    case refreshed
    /// The session ended: a logout.
    case loggedOut
    /// The provider refused the refresh token; the session was cleared and the user must log in again.
    case reauthenticationRequired
}
