import CofferBase
import FoundationEssentials

/// An item as the vault stores it: its row key, which names it for as long as the vault key
/// stays the same, and its attributes.
package struct StoredItem: Sendable, Hashable {
    /// The item's row key (docs/vault-format.md, 5.1).
    package let rowKey: [UInt8]
    package let attributes: ItemAttributes
    /// The item's owner and access list (format version 3).
    package let access: ItemAccess

    package init(rowKey: [UInt8], attributes: ItemAttributes, access: ItemAccess) {
        self.rowKey = rowKey
        self.attributes = attributes
        self.access = access
    }

    /// ``ItemAttributes/storeOrder(_:_:)`` of their attributes.
    static func storeOrder(_ lhs: StoredItem, _ rhs: StoredItem) -> Bool {
        ItemAttributes.storeOrder(lhs.attributes, rhs.attributes)
    }
}

extension Vault {
    /// The live items whose ``ItemAttributes/indexedAttributes`` include every one of
    /// `attributes`, in store order; every live item when `attributes` is empty.
    ///
    /// In a version 2 vault this reads the records the attribute index names and no other
    /// (docs/vault-format.md, 5.4); each is opened and its attributes checked, since index rows
    /// are not authenticated. A version 1 vault, which has no index, is scanned. Expired items
    /// met on the way are purged; records that fail authentication are skipped.
    package func storedItems(withAttributes attributes: [String: String]) throws(CofferError) -> [StoredItem] {
        let now = configuration.now()
        let matches = ItemAttributes.matcher(for: attributes)
        return try withUnlockedKeys { connection, keys throws(CofferError) -> [StoredItem] in
            guard !attributes.isEmpty, try Self.formatVersion(connection) >= 2 else {
                let scan = try scanRecords(connection, keys, now: now)
                for expired in scan.expired { try Self.purge(expired.rowKey, expired.sealed, connection) }
                return scan.live.filter { matches($0.attributes) }.map(\.stored).sorted(by: StoredItem.storeOrder)
            }
            var found: [StoredItem] = []
            for rowKey in try AttributeIndex.candidates(for: attributes, keys, connection) {
                guard let sealed = try Self.record(at: rowKey, connection),
                      var plaintext = openSealed(sealed, rowKey: rowKey, keys) else { continue }
                defer { SecretMemory.zero(&plaintext) }
                guard let decoded = try? checkedDecode(plaintext, rowKey: rowKey, keys) else { continue }
                if decoded.isExpired(at: now) {
                    try Self.purge(rowKey, sealed, connection)
                    continue
                }
                let attributes = decoded.attributes
                if matches(attributes) { found.append(StoredItem(rowKey: rowKey, attributes: attributes, access: decoded.access)) }
            }
            try Self.verifyKeyCheck(connection, keys)
            return found.sorted(by: StoredItem.storeOrder)
        }
    }

    /// The live item whose row key is `rowKey`, or `nil` when there is none (or it expired, and
    /// is purged). Throws ``CofferError/integrityFailure`` when its record fails authentication.
    package func storedItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Item? {
        try readLive(.row(rowKey)) { decoded, _ in decoded.item }
    }

    /// When the vault was created (the `vault` table's `created_at`). Works while locked.
    package func creationDate() throws(CofferError) -> Date {
        try withConnection { connection throws(CofferError) in
            Date(timeIntervalSince1970: Double(try connection.integer("SELECT created_at FROM vault WHERE singleton = 1") ?? 0))
        }
    }

    /// The row key the item `id` has under the vault's current key.
    package func rowKey(for id: ItemID) throws(CofferError) -> [UInt8] {
        try withUnlockedKeys { _, keys throws(CofferError) in keys.rowKey(for: id) }
    }

    /// Sets an item, as ``set(_:for:options:owner:)`` does, and returns its row key. A new item is
    /// owned by `owner`; one that exists keeps its owner and access list.
    @discardableResult
    package func store(_ secret: Data, for id: ItemID, options: ItemOptions, owner: Program? = Program.current()) throws(CofferError) -> [UInt8] {
        try Limits.checkItem(secret, for: id, options: options)
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                return try upsert(secret, for: id, options: options, now: now, owner: owner, connection, keys)
            }
        }
    }

    /// Replaces the item at `old` with the item `id` (which may be the same item), keeping its
    /// creation date, its owner and its access list, in one transaction: for a change of the
    /// names that give an item its row.
    /// Returns the new row key; throws ``CofferError/itemNotFound`` when `old` holds no live
    /// item any more, and ``CofferError/invalidArgument(reason:)`` when another live item has
    /// the names `id`: a move never replaces another item (nor takes its row, owner and all).
    package func move(from old: [UInt8], to id: ItemID, secret: Data, options: ItemOptions) throws(CofferError) -> [UInt8] {
        try Limits.checkItem(secret, for: id, options: options)
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                guard let sealed = try Self.record(at: old, connection), var plaintext = openSealed(sealed, rowKey: old, keys) else {
                    throw .itemNotFound
                }
                defer { SecretMemory.zero(&plaintext) }
                let previous = try checkedDecode(plaintext, rowKey: old, keys)
                guard !previous.isExpired(at: now) else { throw .itemNotFound }
                if keys.rowKey(for: id) != old {
                    guard try liveKept(of: id, now: now, connection, keys) == nil else {
                        throw .invalidArgument(reason: "another item already has these names")
                    }
                    _ = try Self.delete(old, connection)
                }
                let kept = Kept(created: previous.created, access: previous.access)
                return try upsert(secret, for: id, options: options, now: now, owner: nil, keeping: kept, connection, keys)
            }
        }
    }

    /// Removes the item at `rowKey` and its index rows. Returns whether there was one.
    @discardableResult
    package func removeStoredItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Bool {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                return try Self.delete(rowKey, connection)
            }
        }
    }
}

extension ItemAttributes {
    /// Whether an item's ``indexedAttributes`` include every one of `attributes`, compared in
    /// Unicode NFC, as ``Vault/storedItems(withAttributes:)`` selects items.
    package static func matcher(for attributes: [String: String]) -> @Sendable (ItemAttributes) -> Bool {
        let wanted = attributes.map { (Normalization.nfc($0.key), Normalization.nfc($0.value)) }
        return { item in
            let have = item.indexedAttributes
            return wanted.allSatisfy { name, value in have[name].map(Normalization.nfc) == value }
        }
    }
}
