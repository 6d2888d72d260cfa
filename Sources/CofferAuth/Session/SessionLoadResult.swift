/// What ``Authorization/loadStoredSession()`` found in the keychain.
public enum SessionLoadResult: Sendable, Hashable {
    /// A usable session is now current.
    case loaded
    /// There is no stored session (or only a remembered user name).
    case missing
    /// The stored token has expired (leeway included). When the session keeps its
    /// credentials (OAuth), the next request renews the token without the user.
    case expired(renewable: Bool)
    /// The stored session belongs to another backend or backend version.
    case otherBackend
}
