import Foundation

/// A fixed redirect URI for browser logins, for providers that match the redirect URI exactly
/// (no RFC 8252 §7.3 port relaxation, no wildcard): `http://127.0.0.1:8400/callback`,
/// `http://[::1]:8400/callback` or `http://localhost:8400/callback`.
///
/// It must be a loopback `http` URI with an explicit port, and no user, query or fragment.
/// The login listens on exactly that port and path (`localhost` on 127.0.0.1) and sends the
/// URI to the provider exactly as written. Without one, a login listens on a random port of
/// 127.0.0.1 at `/callback`.
public struct LoopbackRedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// The URI as given, sent to the provider byte for byte.
    public let uri: String
    /// The address the listener binds: `127.0.0.1` or `::1`.
    let bindAddress: String
    /// The port the listener binds.
    let port: Int
    /// The path the redirect must arrive at.
    let path: String

    /// Checks `uri`; throws ``AuthError/invalidRequest(reason:)`` for anything but a loopback
    /// `http` URI with an explicit port.
    public init(_ uri: String) throws(AuthError) {
        guard let components = URLComponents(string: uri), components.scheme == "http" else {
            throw .invalidRequest(reason: "the redirect URI must be an http URI on loopback (http://127.0.0.1:PORT/PATH)")
        }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              !uri.contains("#"), !uri.contains("?")
        else { throw .invalidRequest(reason: "the redirect URI must have no user, query or fragment") }
        let bindAddress: String
        switch components.host {
        case "127.0.0.1", "localhost": bindAddress = "127.0.0.1"
        case "::1", "[::1]": bindAddress = "::1"
        default: throw .invalidRequest(reason: "the redirect URI's host must be 127.0.0.1, [::1] or localhost")
        }
        guard let port = components.port, (1...65_535).contains(port) else {
            throw .invalidRequest(reason: "the redirect URI needs an explicit port (1 to 65535)")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.uri = uri
        self.bindAddress = bindAddress
        self.port = port
        self.path = path
    }

    public var description: String { uri }
}
