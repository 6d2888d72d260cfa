/// A Mobile Hub user, as `GET {base}/mobile/platform/users/~` describes them (the Oracle SDK's
/// `User`: `username`, `firstName`, `lastName`, `email`).
public struct MobileUser: Sendable, Hashable, Codable {
    /// The user's name.
    public let userName: String
    public let firstName: String?
    public let lastName: String?
    public let email: String?

    public init(userName: String, firstName: String? = nil, lastName: String? = nil, email: String? = nil) {
        self.userName = userName
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }

    /// The user of a reply body; it must name one.
    init(json: [String: JSONValue]) throws(AuthError) {
        guard let name = json["username"]?.stringValue, !name.isEmpty else { throw .malformedResponse(reason: "the user has no username") }
        self.init(
            userName: name, firstName: json["firstName"]?.stringValue, lastName: json["lastName"]?.stringValue, email: json["email"]?.stringValue)
    }
}
