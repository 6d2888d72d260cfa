import CofferBase
import FoundationEssentials

extension Vault {
    /// What ``set(_:for:options:owner:replacingIf:)`` did.
    package enum GuardedSet: Sendable, Equatable {
        /// The item was new (or expired, or unreadable): it now exists, owned by the writer.
        case created
        /// The item existed, its access admitted the writer, and it was replaced; it keeps this
        /// owner and access list.
        case replaced(ItemAccess)
        /// The item exists and its access does not admit the writer: nothing was written.
        case refused(ItemAccess)
    }

    /// Creates the item with `owner`, or replaces it only when `admits` accepts its owner and
    /// access list, deciding and writing in one durable transaction: no other writer can create
    /// the item between the check and the write. A front door sets an item for a program this
    /// way, so that a program cannot replace another program's item by racing it.
    package func set(
        _ secret: Data, for id: ItemID, options: ItemOptions = ItemOptions(), owner: Program?,
        replacingIf admits: (ItemAccess) -> Bool
    ) throws(CofferError) -> GuardedSet {
        try Limits.checkItem(secret, for: id, options: options)
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) -> GuardedSet in
                try prepareItemWrite(connection, keys)
                let kept = try liveKept(of: id, now: now, connection, keys)
                let access = kept?.access
                if let access, !admits(access) { return .refused(access) }
                try upsert(secret, for: id, options: options, now: now, owner: owner, keeping: kept, connection, keys)
                return access.map { .replaced($0) } ?? .created
            }
        }
    }

    /// Removes, in one durable transaction, the live items `query` selects whose owner and
    /// access list `admits` accepts, and purges expired ones. Returns the items removed and the
    /// items left because `admits` refused them, each with its access. Items `spared` names are
    /// left alone and not reported.
    package func removeAll(
        matching query: ItemQuery, where admits: (ItemAccess) -> Bool, sparing spared: (ItemID) -> Bool = { _ in false }
    ) throws(CofferError) -> (removed: [StoredItem], refused: [StoredItem]) {
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                let scan = try scanRecords(connection, keys, now: now)
                var removed: [StoredItem] = []
                var refused: [StoredItem] = []
                for record in scan.live where query.matches(record.attributes) && !spared(record.attributes.id) {
                    if admits(record.access) { removed.append(record.stored) } else { refused.append(record.stored) }
                }
                for row in removed.map(\.rowKey) + scan.expired.map(\.rowKey) { try Self.delete(row, connection) }
                return (removed.sorted(by: StoredItem.storeOrder), refused.sorted(by: StoredItem.storeOrder))
            }
        }
    }
}
