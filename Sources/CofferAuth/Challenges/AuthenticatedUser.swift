import Foundation

/// The user a security check or realm authenticated, decoded from its success: MobileFirst's
/// `{"user": {"id", "displayName", "authenticatedAt", "authenticatedBy"}}` or Mobile Client
/// Access's `{"userIdentity": {"id", "displayName", "authBy"}}`.
public struct AuthenticatedUser: Sendable, Hashable, Codable {
    /// The user's id.
    public let id: String
    /// The name to show, when the server gave one.
    public let displayName: String?
    /// When the user was authenticated, when the server said (MobileFirst sends milliseconds since 1970).
    public let authenticatedAt: Date?
    /// The security check or realm that authenticated the user.
    public let authenticatedBy: String?

    /// A user with these properties.
    public init(id: String, displayName: String? = nil, authenticatedAt: Date? = nil, authenticatedBy: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.authenticatedAt = authenticatedAt
        self.authenticatedBy = authenticatedBy
    }

    /// The user in a success payload; `nil` when it names none.
    public init?(success: JSONValue) {
        guard let user = success["user"] ?? success["userIdentity"], let id = user["id"]?.stringValue, !id.isEmpty else { return nil }
        self.init(
            id: id,
            displayName: user["displayName"]?.stringValue,
            authenticatedAt: user["authenticatedAt"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) },
            authenticatedBy: (user["authenticatedBy"] ?? user["authBy"])?.stringValue)
    }
}
