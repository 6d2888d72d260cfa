import FoundationEssentials

/// A place that keeps items: the encrypted ``Vault``, the Secret Service, or ``InMemoryStore``.
///
/// Every store gives the same guarantees, which ``Keychain`` relies on and the conformance
/// suite checks:
/// - `nil` or `false` means the store was read and the item is absent; every other outcome throws.
/// - ``set(_:for:options:)`` creates or replaces an item atomically.
/// - Expired items read as absent.
/// - Errors are ``CofferError`` values and carry no secrets.
public protocol CredentialStore: Sendable {
    /// Creates or replaces the item with this identity.
    func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError)
    /// The item, or `nil` when it does not exist.
    func item(for id: ItemID) throws(CofferError) -> Item?
    /// The item's secret, or `nil` when it does not exist.
    func secret(for id: ItemID) throws(CofferError) -> Data?
    /// Removes the item. Returns whether there was one.
    @discardableResult func remove(_ id: ItemID) throws(CofferError) -> Bool
    /// The attributes of every item the query selects, sorted by class, service and account.
    func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes]
    /// Removes every item the query selects. Returns how many were removed.
    @discardableResult func removeAll(matching query: ItemQuery) throws(CofferError) -> Int
}

extension CredentialStore {
    /// Reads the whole item and returns its secret. Stores with a faster path override this.
    public func secret(for id: ItemID) throws(CofferError) -> Data? {
        try item(for: id)?.secret
    }
}

extension ItemAttributes {
    /// The order every store returns query results in: by class, service, then account.
    static func storeOrder(_ lhs: ItemAttributes, _ rhs: ItemAttributes) -> Bool {
        ItemID.storeOrder(lhs.id, rhs.id)
    }
}

extension ItemID {
    /// Whether `lhs` comes before `rhs` in the order stores return items in.
    static func storeOrder(_ lhs: ItemID, _ rhs: ItemID) -> Bool {
        (lhs.itemClass.rawValue, lhs.service, lhs.account) < (rhs.itemClass.rawValue, rhs.service, rhs.account)
    }
}
