import FoundationEssentials

/// The metadata a caller sets with a secret. Setting an item replaces all of it.
public struct ItemOptions: Sendable, Hashable {
    /// A human-readable label.
    public var label: String?
    /// A free-form comment.
    public var comment: String?
    /// Free-form string attributes, which queries can match on.
    public var custom: [String: String]
    /// When the item stops existing. An expired item reads as absent and is purged.
    public var expiresAt: Date?
    /// Protocol, port, path and authentication type; only for internet passwords.
    public var internet: InternetAttributes?
    /// The secret's media type, as the Secret Service keeps it (for example `text/plain`).
    public var contentType: String?

    /// Creates options; every field is optional.
    public init(
        label: String? = nil, comment: String? = nil, custom: [String: String] = [:],
        expiresAt: Date? = nil, internet: InternetAttributes? = nil, contentType: String? = nil
    ) {
        self.label = label
        self.comment = comment
        self.custom = custom
        self.expiresAt = expiresAt
        self.internet = internet
        self.contentType = contentType
    }

    /// Checks every field against ``Limits`` and the item's class.
    func validate(for itemClass: ItemClass) throws(CofferError) {
        if let expiresAt, ItemRecord.milliseconds(expiresAt) == nil {
            throw .invalidArgument(reason: "the expiry date is out of range")
        }
        if let label { try Limits.check(label, limit: Limits.maxTextBytes, what: "label") }
        if let comment { try Limits.check(comment, limit: Limits.maxTextBytes, what: "comment") }
        if let contentType { try Limits.check(contentType, limit: Limits.maxTextBytes, what: "content type") }
        guard custom.count <= Limits.maxCustomAttributes else {
            throw .invalidArgument(reason: "more than \(Limits.maxCustomAttributes) custom attributes")
        }
        for (name, value) in custom {
            try Limits.check(name, limit: Limits.maxAttributeNameBytes, what: "custom attribute name")
            try Limits.check(value, limit: Limits.maxTextBytes, what: "custom attribute value")
        }
        if let internet {
            guard itemClass == .internetPassword || internet.isEmpty else {
                throw .invalidArgument(reason: "internet attributes are only for internet passwords")
            }
            try internet.validate()
        }
    }
}
