import Foundation

/// How a user logs in to a ``MobileBackend``.
public enum AuthenticationType: Sendable, Hashable, Codable {
    /// HTTP Basic: every call carries `Authorization: Basic base64(user:password)`. The
    /// credentials are checked against the backend before a login succeeds.
    case httpBasic
    /// OAuth 2.0: the RFC 6749 password grant for users and the client-credentials grant for
    /// anonymous access, at `tokenEndpoint`, with the client authenticated by HTTP Basic.
    case oauth(tokenEndpoint: URL, clientID: String, clientSecret: String)
}

extension AuthenticationType: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .httpBasic: "httpBasic"
        case .oauth(let tokenEndpoint, let clientID, _):
            "oauth(tokenEndpoint: \(tokenEndpoint.absoluteString), clientID: \(clientID), clientSecret: redacted)"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
