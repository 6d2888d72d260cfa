/// Who logged in: the claims of the provider's ID token (or its UserInfo endpoint) that name
/// the user.
public struct OpenIDIdentity: Sendable, Hashable, Codable {
    /// `sub`: the user's stable identifier at the issuer.
    public let subject: String
    /// `preferred_username`.
    public let preferredUsername: String?
    /// `email`.
    public let email: String?
    /// `name`.
    public let name: String?

    public init(subject: String, preferredUsername: String? = nil, email: String? = nil, name: String? = nil) {
        self.subject = subject
        self.preferredUsername = preferredUsername
        self.email = email
        self.name = name
    }

    /// The best name to show: the preferred user name, else the email, else the name, else the subject.
    public var displayName: String { preferredUsername ?? email ?? name ?? subject }
}
