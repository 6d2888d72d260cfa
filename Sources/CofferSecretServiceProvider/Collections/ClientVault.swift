import Coffer
import Foundation

/// The part of a vault that Secret Service clients reach: every item except the provider's own
/// records (``ProviderRecords``) and the agent's brokered logins (``BrokeredSessions``: their
/// refresh tokens never leave the agent), which it never lists or reads, and refuses to store,
/// move or delete. The provider's objects reach a vault only through it
/// (``SecretServiceObjects/withVault(_:_:)``), so no client call can see or change a record.
struct ClientVault: CollectionItems {
    private let vault: Vault

    init(_ vault: Vault) {
        self.vault = vault
    }

    /// ``Vault/storedItems(withAttributes:)`` without the provider's records.
    func storedItems(withAttributes attributes: [String: String]) throws(CofferError) -> [StoredItem] {
        try vault.storedItems(withAttributes: attributes).filter { !Self.isHidden($0.attributes.id) }
    }

    /// ``Vault/storedItemWithAccess(atRowKey:)``; `nil` for a provider's record.
    func storedItemWithAccess(atRowKey rowKey: [UInt8]) throws(CofferError) -> (item: Item, access: ItemAccess)? {
        guard let found = try vault.storedItemWithAccess(atRowKey: rowKey), !Self.isHidden(found.item.attributes.id) else {
            return nil
        }
        return found
    }

    /// The vault's access policy (``Vault/accessPolicy()``).
    func accessPolicy() throws(CofferError) -> AccessPolicy? {
        try vault.accessPolicy()
    }

    /// The vault, for the access gate alone: it reads an item's owner and access list, adds to
    /// the list (`always`) and writes the audit log; it lists no item.
    var gated: Vault? { vault }

    func rowKey(for id: ItemID) throws(CofferError) -> [UInt8] {
        try vault.rowKey(for: id)
    }

    /// ``Vault/store(_:for:options:owner:)``, refused for a provider's record. A new item is
    /// owned by `owner` (the client's program); one that exists keeps its owner.
    @discardableResult
    func store(_ secret: Data, for id: ItemID, options: ItemOptions, owner: Program?) throws(CofferError) -> [UInt8] {
        try Self.refuseReserved(id)
        return try vault.store(secret, for: id, options: options, owner: owner)
    }

    /// ``Vault/move(from:to:secret:options:)``, refused to or from a provider's record.
    func move(from old: [UInt8], to id: ItemID, secret: Data, options: ItemOptions) throws(CofferError) -> [UInt8] {
        try Self.refuseReserved(id)
        guard try isClientItem(at: old) else { throw .itemNotFound }
        return try vault.move(from: old, to: id, secret: secret, options: options)
    }

    /// ``Vault/removeStoredItem(atRowKey:)``; a provider's record is not there for a client.
    @discardableResult
    func removeStoredItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Bool {
        guard try isClientItem(at: rowKey) else { return false }
        return try vault.removeStoredItem(atRowKey: rowKey)
    }

    private func isClientItem(at rowKey: [UInt8]) throws(CofferError) -> Bool {
        guard var item = try storedItem(atRowKey: rowKey) else { return false }
        item.secret.wipe()
        return true
    }

    /// Whether clients never see the item `id`.
    private static func isHidden(_ id: ItemID) -> Bool {
        ProviderRecords.isReserved(id) || BrokeredSessions.isBrokered(id)
    }

    private static func refuseReserved(_ id: ItemID) throws(CofferError) {
        guard !isHidden(id) else {
            throw .invalidArgument(reason: "the service \(id.service) is reserved for Coffer's own records")
        }
    }
}
