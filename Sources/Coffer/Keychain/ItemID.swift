/// What identifies an item in a store: its class, its service (or server) and its account.
///
/// Setting an item with the same identity replaces it.
public struct ItemID: Hashable, Sendable, CustomStringConvertible {
    /// The item's class.
    public let itemClass: ItemClass
    /// The service of a generic password, the server of an internet password, or the random
    /// identifier of an attribute item.
    public let service: String
    /// The account (user name).
    public let account: String

    /// Identifies an item of any class by its two names.
    public init(itemClass: ItemClass, service: String, account: String) {
        self.itemClass = itemClass
        self.service = service
        self.account = account
    }

    /// Identifies a generic password.
    public static func genericPassword(service: String, account: String) -> ItemID {
        ItemID(itemClass: .genericPassword, service: service, account: account)
    }

    /// Identifies an internet password.
    public static func internetPassword(server: String, account: String) -> ItemID {
        ItemID(itemClass: .internetPassword, service: server, account: account)
    }

    /// Identifies an attribute item by its identifier.
    public static func attributeItem(identifier: String) -> ItemID {
        ItemID(itemClass: .attributeItem, service: identifier, account: "")
    }

    /// A new attribute item: a random identifier of 32 lowercase hex digits.
    public static func newAttributeItem() -> ItemID {
        attributeItem(identifier: VaultFormat.hexIdentifier(RandomBytes.make(16)))
    }

    public var description: String {
        switch itemClass {
        case .genericPassword: "genericPassword(service: \(service), account: \(account))"
        case .internetPassword: "internetPassword(server: \(service), account: \(account))"
        case .attributeItem: "attributeItem(\(service))"
        }
    }

    /// Checks the names against ``Limits``.
    func validate() throws(CofferError) {
        try Limits.check(service, limit: Limits.maxNameBytes, what: itemClass == .internetPassword ? "server" : "service")
        try Limits.check(account, limit: Limits.maxNameBytes, what: "account")
    }
}
