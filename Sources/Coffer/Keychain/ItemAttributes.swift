import FoundationEssentials

/// Everything about an item except its secret.
public struct ItemAttributes: Sendable, Hashable, CustomStringConvertible {
    /// The item's identity.
    public var id: ItemID
    /// A human-readable label.
    public var label: String?
    /// A free-form comment.
    public var comment: String?
    /// Free-form string attributes.
    public var custom: [String: String]
    /// When the item was first stored.
    public var created: Date
    /// When the item was last set.
    public var modified: Date
    /// When the item expires, if ever.
    public var expiresAt: Date?
    /// Protocol, port, path and authentication type of an internet password.
    public var internet: InternetAttributes?
    /// The secret's media type, when one was given (the Secret Service's content type).
    public var contentType: String?

    /// Creates attributes; stores fill `created` and `modified` themselves when they set items.
    public init(
        id: ItemID, label: String? = nil, comment: String? = nil, custom: [String: String] = [:],
        created: Date, modified: Date, expiresAt: Date? = nil, internet: InternetAttributes? = nil,
        contentType: String? = nil
    ) {
        self.id = id
        self.label = label
        self.comment = comment
        self.custom = custom
        self.created = created
        self.modified = modified
        self.expiresAt = expiresAt
        self.internet = internet
        self.contentType = contentType
    }

    /// The attributes of a freshly set item: `created` kept from the item it replaces, if any.
    init(id: ItemID, options: ItemOptions, created: Date, modified: Date) {
        self.init(
            id: id, label: options.label, comment: options.comment, custom: options.custom,
            created: created, modified: modified, expiresAt: options.expiresAt,
            internet: options.internet.flatMap { $0.isEmpty ? nil : $0 }, contentType: options.contentType)
    }

    /// The caller-settable part, to set the item again with the same metadata.
    public var options: ItemOptions {
        ItemOptions(label: label, comment: comment, custom: custom, expiresAt: expiresAt, internet: internet, contentType: contentType)
    }

    /// Whether the item has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    public var description: String { "ItemAttributes(\(id))" }
}
