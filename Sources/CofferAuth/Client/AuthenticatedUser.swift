import Foundation

/// Who is logged in, whichever client logged them in: an OpenID provider's ID token or UserInfo
/// claims, a MobileFirst security check's or Mobile Client Access realm's success, or the
/// mobile backend's current user.
public struct AuthenticatedUser: Sendable, Hashable, Codable, Identifiable {
    /// The user's stable id at the server: OpenID's `sub`, the `id` of a MobileFirst or Mobile
    /// Client Access user, the mobile backend's `username`.
    public let id: String
    /// The user's name in displayable form: OpenID's `name`, MobileFirst's `displayName`, the
    /// mobile backend's first and last names.
    public let name: String?
    /// The name the user goes by: OpenID's `preferred_username`, the mobile backend's `username`.
    public let preferredUsername: String?
    /// The user's email address, when the server gave one.
    public let email: String?
    /// When the user was authenticated, when the server said (MobileFirst sends milliseconds since 1970).
    public let authenticatedAt: Date?
    /// The security check or realm that authenticated the user.
    public let authenticatedBy: String?

    /// A user with these properties.
    public init(
        id: String, name: String? = nil, preferredUsername: String? = nil, email: String? = nil, authenticatedAt: Date? = nil,
        authenticatedBy: String? = nil
    ) {
        self.id = id
        self.name = name
        self.preferredUsername = preferredUsername
        self.email = email
        self.authenticatedAt = authenticatedAt
        self.authenticatedBy = authenticatedBy
    }

    /// The best name to show: the preferred user name, else the email, else the name, else the id.
    public var displayName: String { preferredUsername ?? email ?? name ?? id }

    /// The user in a MobileFirst or Mobile Client Access success payload
    /// (`{"user": {"id", "displayName", "authenticatedAt", "authenticatedBy"}}`, or
    /// `{"userIdentity": {"id", "displayName", "authBy"}}`); `nil` when it names none.
    init?(success: JSONValue) {
        guard let user = success["user"] ?? success["userIdentity"], let id = user["id"]?.stringValue, !id.isEmpty else { return nil }
        self.init(
            id: id, name: user["displayName"]?.stringValue,
            authenticatedAt: user["authenticatedAt"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) },
            authenticatedBy: (user["authenticatedBy"] ?? user["authBy"])?.stringValue)
    }

    /// The mobile backend's current user (`GET {base}/mobile/platform/users/~`: `username`,
    /// `firstName`, `lastName`, `email`); it must name one.
    init(mobileHubUser json: [String: JSONValue]) throws(AuthError) {
        guard let userName = json["username"]?.stringValue, !userName.isEmpty else { throw .malformedResponse(reason: "the user has no username") }
        let parts = [json["firstName"]?.stringValue, json["lastName"]?.stringValue].compactMap { $0 }.filter { !$0.isEmpty }
        self.init(id: userName, name: parts.isEmpty ? nil : parts.joined(separator: " "), preferredUsername: userName, email: json["email"]?.stringValue)
    }

    // Sessions stored before there was one user type name the OpenID user's id `subject` and a
    // challenge user's name `displayName`; both still decode.
    private enum CodingKeys: String, CodingKey {
        case id, name, preferredUsername, email, authenticatedAt, authenticatedBy
        case subject, displayName
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try container.decodeIfPresent(String.self, forKey: .id) ?? container.decodeIfPresent(String.self, forKey: .subject) else {
            throw DecodingError.keyNotFound(CodingKeys.id, .init(codingPath: decoder.codingPath, debugDescription: "a user without an id"))
        }
        self.init(
            id: id,
            name: try container.decodeIfPresent(String.self, forKey: .name) ?? container.decodeIfPresent(String.self, forKey: .displayName),
            preferredUsername: try container.decodeIfPresent(String.self, forKey: .preferredUsername),
            email: try container.decodeIfPresent(String.self, forKey: .email),
            authenticatedAt: try container.decodeIfPresent(Date.self, forKey: .authenticatedAt),
            authenticatedBy: try container.decodeIfPresent(String.self, forKey: .authenticatedBy))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(authenticatedAt, forKey: .authenticatedAt)
        try container.encodeIfPresent(authenticatedBy, forKey: .authenticatedBy)
    }
}
