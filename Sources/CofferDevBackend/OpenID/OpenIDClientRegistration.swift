import Foundation

/// An OpenID client the development backend's provider knows: its id, its secret when it is
/// confidential, and the redirect URIs it registered.
public struct OpenIDClientRegistration: Sendable, Hashable {
    /// The `client_id`.
    public var id: String
    /// The secret of a confidential client (HTTP Basic or `client_secret_post`); `nil` for a
    /// public client, which sends only `client_id` (RFC 6749 §2.3, RFC 8252 §8.4).
    public var secret: String?
    /// The registered redirect URIs, compared as ``RedirectURIRule`` says: exactly, except that
    /// a loopback registration (`http://127.0.0.1/…`, `http://[::1]/…`) accepts any port
    /// (RFC 8252 §7.3).
    public var redirectURIs: [String]

    /// A client with the given values.
    public init(id: String, secret: String? = nil, redirectURIs: [String]) {
        self.id = id
        self.secret = secret
        self.redirectURIs = redirectURIs
    }

    /// Whether the client has no secret.
    public var isPublic: Bool { secret == nil }

    /// Whether `redirectURI` is one of the client's.
    public func allows(redirectURI: String) -> Bool {
        redirectURIs.contains { RedirectURIRule.matches(registered: $0, requested: redirectURI) }
    }

    /// The loopback callbacks of a native app, on any port: `http://127.0.0.1/callback` and
    /// `http://[::1]/callback`.
    public static let loopbackCallbacks = ["http://127.0.0.1/callback", "http://[::1]/callback"]

    /// The default public native client, `coffer-native`: no secret, loopback callbacks.
    public static let native = OpenIDClientRegistration(id: "coffer-native", redirectURIs: loopbackCallbacks)

    /// The default confidential client, `coffer-confidential` with secret
    /// `coffer-confidential-secret`: loopback callbacks. Not served with `--allow-remote`.
    public static let confidential = OpenIDClientRegistration(
        id: "coffer-confidential", secret: "coffer-confidential-secret", redirectURIs: loopbackCallbacks)
}
