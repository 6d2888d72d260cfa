import Foundation

/// An access token and its lifetime. `description` never shows the token.
public struct AccessToken: Sendable, Hashable, Codable {
    /// The token itself. A secret.
    public let value: String
    /// The token type; always `Bearer` in the protocols Coffer speaks.
    public let type: String
    /// When it was issued, by the facade's clock.
    public let issuedAt: Date
    /// When it expires, by the facade's clock.
    public let expiresAt: Date
    /// Mobile Client Access only: the ID token that resources get beside the access token
    /// (`Authorization: Bearer <access token> <ID token>`). A secret too.
    public internal(set) var idToken: String?

    public init(value: String, type: String = "Bearer", issuedAt: Date, expiresAt: Date, idToken: String? = nil) {
        self.value = value
        self.type = type
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.idToken = idToken
    }

    /// Whether the token can still be used at `now`, allowing `leeway` for clock skew.
    ///
    /// The leeway is capped at half the token's lifetime, so that a short-lived token is not
    /// expired the moment it arrives.
    public func isValid(at now: Date, leeway: TimeInterval) -> Bool {
        let effectiveLeeway = min(max(leeway, 0), expiresAt.timeIntervalSince(issuedAt) / 2)
        return now < expiresAt.addingTimeInterval(-effectiveLeeway)
    }

    /// `Authorization` header value: `Bearer <token>` (RFC 6750 §2.1), or Mobile Client Access's
    /// `Bearer <token> <ID token>`.
    var headerValue: String { "Bearer \(value)" + (idToken.map { " \($0)" } ?? "") }
}

extension AccessToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "AccessToken(type: \(type), value: redacted, expiresAt: \(expiresAt))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["type": type, "expiresAt": expiresAt]) }
}
