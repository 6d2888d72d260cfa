import Coffer
import Foundation

/// What the provider's objects read and write a collection's items through
/// (``SecretServiceObjects/withVault(_:_:)``): a vault the agent holds (``ClientVault``), or the
/// items a share serves (``UpstreamItems``). Row keys name items on the bus (``ObjectPaths/item(_:in:)``).
protocol CollectionItems {
    /// The live items whose ``ItemAttributes/indexedAttributes`` include every one of `attributes`
    /// (every item for none).
    func storedItems(withAttributes attributes: [String: String]) throws(CofferError) -> [StoredItem]
    /// The item at `rowKey` with its owner and access list; `nil` when there is none.
    func storedItemWithAccess(atRowKey rowKey: [UInt8]) throws(CofferError) -> (item: Item, access: ItemAccess)?
    /// The access policy the provider applies to the items; `nil` when it applies none because
    /// another has decided already (a share's grant: everything listed may be used).
    func accessPolicy() throws(CofferError) -> AccessPolicy?
    /// Where the provider's access decisions are logged; `nil` when it makes none.
    var gated: Vault? { get }
    /// The row key the item `id` has (or would have).
    func rowKey(for id: ItemID) throws(CofferError) -> [UInt8]
    /// Creates or replaces the item `id`; a new one is owned by `owner` where owners are kept.
    /// Returns its row key.
    @discardableResult
    func store(_ secret: Data, for id: ItemID, options: ItemOptions, owner: Program?) throws(CofferError) -> [UInt8]
    /// Replaces the item at `old` with the item `id` (which may be the same item). Returns the new row key.
    func move(from old: [UInt8], to id: ItemID, secret: Data, options: ItemOptions) throws(CofferError) -> [UInt8]
    /// Removes the item at `rowKey`. Returns whether there was one.
    @discardableResult
    func removeStoredItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Bool
}

extension CollectionItems {
    /// The item at `rowKey`, without its access list.
    func storedItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Item? {
        try storedItemWithAccess(atRowKey: rowKey)?.item
    }
}
