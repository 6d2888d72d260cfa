/// Selects items by class, service, account and custom attributes. A `nil` field matches anything.
public struct ItemQuery: Sendable, Hashable {
    /// The class to match.
    public var itemClass: ItemClass?
    /// The service (or server) to match.
    public var service: String?
    /// The account to match.
    public var account: String?
    /// Custom attributes that must all be present with these values.
    public var custom: [String: String]

    /// Creates a query; leave a field `nil` (or `custom` empty) to match anything.
    public init(itemClass: ItemClass? = nil, service: String? = nil, account: String? = nil, custom: [String: String] = [:]) {
        self.itemClass = itemClass
        self.service = service
        self.account = account
        self.custom = custom
    }

    /// Every item.
    public static let all = ItemQuery()

    /// Whether an item with these attributes is selected.
    public func matches(_ attributes: ItemAttributes) -> Bool {
        if let itemClass, attributes.id.itemClass != itemClass { return false }
        if let service, attributes.id.service != service { return false }
        if let account, attributes.id.account != account { return false }
        return custom.allSatisfy { attributes.custom[$0.key] == $0.value }
    }

    /// What the vault's attribute index can look up for this query: its custom attributes, with
    /// the service and account under their attribute names when the class is given; `nil` when
    /// that is nothing. ``matches(_:)`` still has the final word.
    var indexedAttributes: [String: String]? {
        var attributes = custom
        switch itemClass {
        case .genericPassword?:
            if let service { attributes[AttributeName.service] = service }
            if let account { attributes[AttributeName.username] = account }
        case .internetPassword?:
            if let service { attributes[AttributeName.server] = service }
            if let account { attributes[AttributeName.user] = account }
        case .attributeItem?, nil:
            break
        }
        return attributes.isEmpty ? nil : attributes
    }

    /// The one item this query names, when it names class, service and account.
    var exactID: ItemID? {
        guard let itemClass, let service, let account else { return nil }
        return ItemID(itemClass: itemClass, service: service, account: account)
    }
}
