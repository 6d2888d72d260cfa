/// What identifies an item in a store: its class, its service (or server) and its account.
///
/// Setting an item with the same identity replaces it.
public struct ItemID: Hashable, Sendable, CustomStringConvertible {
    /// The item's class.
    public let itemClass: ItemClass
    /// The service of a generic password, or the server of an internet password.
    public let service: String
    /// The account (user name).
    public let account: String

    /// Identifies a generic password.
    public static func genericPassword(service: String, account: String) -> ItemID {
        ItemID(itemClass: .genericPassword, service: service, account: account)
    }

    /// Identifies an internet password.
    public static func internetPassword(server: String, account: String) -> ItemID {
        ItemID(itemClass: .internetPassword, service: server, account: account)
    }

    public var description: String {
        switch itemClass {
        case .genericPassword: "genericPassword(service: \(service), account: \(account))"
        case .internetPassword: "internetPassword(server: \(service), account: \(account))"
        }
    }

    /// Checks the names against ``Limits``.
    func validate() throws(CofferError) {
        try Limits.check(service, limit: Limits.maxNameBytes, what: itemClass == .genericPassword ? "service" : "server")
        try Limits.check(account, limit: Limits.maxNameBytes, what: "account")
    }
}
