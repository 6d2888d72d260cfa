import CofferBase
import FoundationEssentials

extension Vault {
    /// The item's owner and access list, or `nil` when the item is absent or expired. Items from
    /// before format version 3 have neither (``ItemAccess/unowned``).
    package func access(for id: ItemID) throws(CofferError) -> ItemAccess? {
        try readLive(.item(id)) { decoded, _ in decoded.access }
    }

    /// The item and its owner and access list, from one read of its record.
    package func itemWithAccess(for id: ItemID) throws(CofferError) -> (item: Item, access: ItemAccess)? {
        try readLive(.item(id)) { decoded, _ in (decoded.item, decoded.access) }
    }

    /// The item at `rowKey` and its owner and access list, from one read of its record; `nil`
    /// when there is none (or it expired, and is purged).
    package func storedItemWithAccess(atRowKey rowKey: [UInt8]) throws(CofferError) -> (item: Item, access: ItemAccess)? {
        try readLive(.row(rowKey)) { decoded, _ in (decoded.item, decoded.access) }
    }

    /// Creates or replaces an item, as ``set(_:for:options:)`` does, with `owner` as the owner of
    /// a new item. An item that exists and has not expired keeps its owner and access list,
    /// whatever `owner` says: who may read an item is changed by ``grant(_:to:)`` and
    /// ``revoke(_:from:)`` alone.
    package func set(_ secret: Data, for id: ItemID, options: ItemOptions = ItemOptions(), owner: Program?) throws(CofferError) {
        try set([(id, secret, options)], owner: owner)
    }

    /// Creates or replaces an item as ``set(_:for:options:owner:)`` does, and adds `programs` to
    /// its access list as ``grant(_:to:)`` does, all in one durable transaction (`coffer set
    /// --allow`, like `security add-generic-password -T` on macOS). Returns the programs that
    /// changed the list (new, or with another pin). Throws ``CofferError/invalidArgument(reason:)``
    /// when the list would exceed ``ItemAccess/maxAllowed`` programs, and writes nothing then.
    @discardableResult
    package func set(
        _ secret: Data, for id: ItemID, options: ItemOptions = ItemOptions(), owner: Program?, allowing programs: [Program]
    ) throws(CofferError) -> [Program] {
        try Limits.checkItem(secret, for: id, options: options)
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                let kept = try liveKept(of: id, now: now, connection, keys)
                var access = kept?.access ?? ItemAccess(owner: owner)
                let added = programs.filter { access.insert($0) }
                try Self.checkLimit(of: access)
                try upsert(
                    secret, for: id, options: options, now: now, owner: owner, keeping: Kept(created: kept?.created ?? now, access: access),
                    connection, keys)
                return added
            }
        }
    }

    /// Creates or replaces items of `owner`'s, and removes the items `removing` names, all in one
    /// durable transaction: a new item is `owner`'s, with its `allowing` programs on its access
    /// list; an item `owner` owns already is replaced (or removed), its access list as it was.
    /// When one of them is another's (a live item whose owner is not `owner`, or that has none),
    /// nothing is written or removed and the error is ``CofferError/accessDenied(program:)``. The
    /// agent keeps a brokered login so: no program replaces a login another made, nor widens who
    /// gets its tokens.
    package func setOwned(
        _ entries: [(id: ItemID, secret: Data, options: ItemOptions, allowing: [Program])], removing: [ItemID] = [], by owner: Program?
    ) throws(CofferError) {
        for entry in entries { try Limits.checkItem(entry.secret, for: entry.id, options: entry.options) }
        let now = configuration.now()
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                let denied = CofferError.accessDenied(program: owner?.description ?? "an unidentified program")
                for id in removing where !entries.contains(where: { $0.id == id }) {
                    guard let kept = try liveKept(of: id, now: now, connection, keys) else { continue }
                    guard kept.access.isOwned(by: owner) else { throw denied }
                    _ = try Self.delete(keys.rowKey(for: id), connection)
                }
                for entry in entries {
                    var keeping = try liveKept(of: entry.id, now: now, connection, keys)
                    if let kept = keeping {
                        guard kept.access.isOwned(by: owner) else { throw denied }
                    } else {
                        var access = ItemAccess(owner: owner)
                        for program in entry.allowing { access.insert(program) }
                        try Self.checkLimit(of: access)
                        keeping = Kept(created: now, access: access)
                    }
                    try upsert(entry.secret, for: entry.id, options: entry.options, now: now, owner: owner, keeping: keeping, connection, keys)
                }
            }
        }
    }

    /// Allows `program` to read the item besides its owner, in one durable transaction. An entry
    /// for the same program (the same executable, script, app and unit) is replaced, so a grant
    /// with a pin replaces one without. Returns whether the access list changed.
    ///
    /// Throws ``CofferError/itemNotFound`` when the item is absent or expired, and
    /// ``CofferError/invalidArgument(reason:)`` when the list would exceed
    /// ``ItemAccess/maxAllowed`` programs.
    @discardableResult
    package func grant(_ program: Program, to id: ItemID) throws(CofferError) -> Bool {
        return try changeAccess(of: id) { access throws(CofferError) in
            guard access.insert(program) else { return false }
            try Self.checkLimit(of: access)
            return true
        }
    }

    /// Removes every entry for `program` (whatever its pins) from the item's access list, in one
    /// durable transaction. The owner is not on the list and stays. Returns whether the list
    /// changed; throws ``CofferError/itemNotFound`` when the item is absent or expired.
    @discardableResult
    package func revoke(_ program: Program, from id: ItemID) throws(CofferError) -> Bool {
        try changeAccess(of: id) { access in access.remove(program) > 0 }
    }

    /// Throws ``CofferError/invalidArgument(reason:)`` when `access` lists more than ``ItemAccess/maxAllowed`` programs.
    private static func checkLimit(of access: ItemAccess) throws(CofferError) {
        guard access.allowed.count <= ItemAccess.maxAllowed else {
            throw .invalidArgument(reason: "an item's access list holds at most \(ItemAccess.maxAllowed) programs")
        }
    }

    /// Rewrites the item's record with the access `change` makes, when it says it made one. The
    /// record's other fields keep their bytes; its dates and index rows stay.
    private func changeAccess(of id: ItemID, _ change: (inout ItemAccess) throws(CofferError) -> Bool) throws(CofferError) -> Bool {
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                guard var opened = try openRecord(at: .item(id), connection, keys) else { throw .itemNotFound }
                defer { SecretMemory.zero(&opened.plaintext) }
                let decoded = try checkedDecode(opened, keys)
                guard !decoded.isExpired(at: now) else { throw .itemNotFound }
                var access = decoded.access
                guard try change(&access) else { return false }
                var plaintext = try ItemRecord.replacingAccess(in: opened.plaintext, with: access)
                defer { SecretMemory.zero(&plaintext) }
                let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: itemAssociatedDataPrefix + opened.rowKey)
                try connection.with("UPDATE items SET record = ?1 WHERE row_key = ?2") { statement throws(CofferError) in
                    try statement.bind(.blob(sealed), .blob(opened.rowKey))
                    try statement.run()
                }
                return true
            }
        }
    }
}
