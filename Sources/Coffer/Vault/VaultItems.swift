import CofferBase
import FoundationEssentials

extension Vault: CredentialStore {
    /// Creates or replaces an item in one durable transaction. `created` is kept from the
    /// item it replaces; `modified` is now.
    ///
    /// A new item's owner is this process's executable (docs/security.md: which programs read
    /// which items); an item that exists keeps its owner and the programs allowed to read it.
    public func set(_ secret: Data, for id: ItemID, options: ItemOptions = ItemOptions()) throws(CofferError) {
        try set([(id, secret, options)])
    }

    /// Sets many items in one transaction: all of them or none. For benchmarks and imports.
    /// New items are owned by this process's executable, as with ``set(_:for:options:)``.
    @_spi(Benchmarks)
    public func set(_ entries: [(id: ItemID, secret: Data, options: ItemOptions)]) throws(CofferError) {
        try set(entries, owner: Program.current())
    }

    /// Sets many items in one transaction, `owner` owning those that are new.
    func set(_ entries: [(id: ItemID, secret: Data, options: ItemOptions)], owner: Program?) throws(CofferError) {
        for entry in entries { try Limits.checkItem(entry.secret, for: entry.id, options: entry.options) }
        let now = configuration.now()
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                for entry in entries {
                    try upsert(entry.secret, for: entry.id, options: entry.options, now: now, owner: owner, connection, keys)
                }
            }
        }
    }

    /// What a rewritten item keeps from the item it replaces.
    struct Kept {
        let created: Date
        /// The owner and access-list fields, as the record keeps them.
        let accessFields: [UInt8]
        /// ``ItemRecord/indexedFields(of:)`` of the live record in the rewritten item's row;
        /// `nil` when not known, and the index rows are then made anew.
        let indexedFields: [UInt8]?

        var access: ItemAccess { ItemRecord.access(accessFields) }

        init(created: Date, access: ItemAccess) {
            self.created = created
            accessFields = ItemRecord.encodedAccess(access)
            indexedFields = nil
        }

        /// What the live record `old`, in the rewritten item's own row, keeps.
        init(_ old: ItemRecord.Decoded) {
            created = old.created
            accessFields = Array(old.accessFields)
            indexedFields = old.indexedFields
        }
    }

    /// Writes one item and its attribute index rows inside the caller's write transaction (after
    /// ``prepareItemWrite(_:_:)``). Returns its row key.
    ///
    /// `created`, the owner and the access list come from `kept` when given, else from the live
    /// item the write replaces; a new item gets `owner` and an empty access list.
    @discardableResult
    func upsert(
        _ secret: Data, for id: ItemID, options: ItemOptions, now: Date, owner: Program?, keeping kept: Kept? = nil,
        _ connection: SQLiteConnection, _ keys: VaultKeys
    ) throws(CofferError) -> [UInt8] {
        let indexInput = VaultFormat.blindIndexInput(id)
        let rowKey = keys.rowKey(forIndexInput: indexInput)
        let associatedData = itemAssociatedDataPrefix + rowKey
        var kept = kept
        if kept == nil { kept = try liveKept(at: rowKey, indexInput: indexInput, now: now, connection, keys) }
        let keeping = kept ?? Kept(created: now, access: ItemAccess(owner: owner))
        let attributes = ItemAttributes(id: id, options: options, created: keeping.created, modified: now)
        var plaintext = ItemRecord.encode(attributes, secret: secret, accessFields: keeping.accessFields)
        // The same names and attributes as the record replaced in this row: the same index rows.
        let indexUnchanged = keeping.indexedFields.map { ItemRecord.hasIndexedFields($0, plaintext[...]) } ?? false
        let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: associatedData)
        SecretMemory.zero(&plaintext)
        try connection.with(
            "INSERT INTO items (row_key, record) VALUES (?1, ?2) ON CONFLICT (row_key) DO UPDATE SET record = excluded.record"
        ) { statement throws(CofferError) in
            try statement.bind(.blob(rowKey), .blob(sealed))
            try statement.run()
        }
        if !indexUnchanged { try AttributeIndex.replace(attributes, rowKey: rowKey, keys, connection) }
        return rowKey
    }

    /// What the live item `id` keeps when it is rewritten; `nil` when there is none, or its
    /// record does not open (it is then replaced as if new).
    func liveKept(of id: ItemID, now: Date, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) -> Kept? {
        let indexInput = VaultFormat.blindIndexInput(id)
        return try liveKept(at: keys.rowKey(forIndexInput: indexInput), indexInput: indexInput, now: now, connection, keys)
    }

    /// ``liveKept(of:now:_:_:)`` for the item whose blind-index input is `indexInput` and row key
    /// `rowKey`: its record must name that item, checked as a read by name checks it.
    func liveKept(at rowKey: [UInt8], indexInput: [UInt8], now: Date, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) -> Kept? {
        guard let previous = try Self.record(at: rowKey, connection), let plaintext = openSealed(previous, rowKey: rowKey, keys) else {
            return nil
        }
        var opened = OpenedRecord(indexInput: indexInput, rowKey: rowKey, sealed: previous, plaintext: plaintext)
        defer { SecretMemory.zero(&opened.plaintext) }
        guard let old = try? checkedDecode(opened, keys), !old.isExpired(at: now) else { return nil }
        return Kept(old)
    }

    /// The item, or `nil` when it is absent or expired (an expired item's row is purged).
    /// Throws ``CofferError/integrityFailure`` if its record fails authentication or breaks
    /// the format's rules.
    public func item(for id: ItemID) throws(CofferError) -> Item? {
        try readLive(.item(id)) { decoded, _ in decoded.item }
    }

    /// The item's secret, or `nil` when it is absent or expired.
    public func secret(for id: ItemID) throws(CofferError) -> Data? {
        try readLive(.item(id)) { decoded, _ in decoded.secretData }
    }

    /// Reads, authenticates and strictly decodes the record at `address`, purging it when expired.
    /// `result` gets the decoded record and its row key.
    func readLive<R: Sendable>(_ address: RecordAddress, _ result: (ItemRecord.Decoded, [UInt8]) -> R) throws(CofferError) -> R? {
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) -> R? in
            guard var opened = try openRecord(at: address, connection, keys) else { return nil }
            defer { SecretMemory.zero(&opened.plaintext) }
            let decoded = try checkedDecode(opened, keys)
            guard !decoded.isExpired(at: now) else {
                try Self.purge(opened.rowKey, opened.sealed, connection)
                return nil
            }
            return result(decoded, opened.rowKey)
        }
    }

    /// Removes the item in one durable transaction. Returns whether a row was removed.
    @discardableResult
    public func remove(_ id: ItemID) throws(CofferError) -> Bool {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            let rowKey = keys.rowKey(for: id)
            return try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                return try Self.delete(rowKey, connection)
            }
        }
    }

    /// The items the query selects. A query on custom attributes, or on the service or account
    /// of one class, reads only the records the attribute index names (format version 2);
    /// any other query decrypts every record, since names exist only inside the ciphertext.
    /// Records that fail authentication are skipped; ``unreadableRecordCount()`` counts them.
    public func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        try storedItems(matching: query).map(\.attributes)
    }

    /// The items the query selects, as ``items(matching:)`` finds them, each with its row key
    /// and its owner and access list: for showing who reads what, and for listing only the
    /// items a program may read.
    package func storedItems(matching query: ItemQuery) throws(CofferError) -> [StoredItem] {
        if let id = query.exactID {
            let found = try readLive(.item(id)) { decoded, rowKey in
                StoredItem(rowKey: rowKey, attributes: decoded.attributes, access: decoded.access)
            }
            guard let found, query.matches(found.attributes) else { return [] }
            return [found]
        }
        if let attributes = query.indexedAttributes {
            return try storedItems(withAttributes: attributes).filter { query.matches($0.attributes) }
        }
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            let scan = try scanRecords(connection, keys, now: now)
            for expired in scan.expired { try Self.purge(expired.rowKey, expired.sealed, connection) }
            return scan.live.filter { query.matches($0.attributes) }.map(\.stored).sorted(by: StoredItem.storeOrder)
        }
    }

    /// Removes every readable item the query selects (and purges expired ones) in one transaction.
    @discardableResult
    public func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        if let id = query.exactID {
            guard let item = try item(for: id), query.matches(item.attributes) else { return 0 }
            return try remove(id) ? 1 : 0
        }
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                let scan = try scanRecords(connection, keys, now: now)
                let matching = scan.live.filter { query.matches($0.attributes) }
                for row in matching.map(\.rowKey) + scan.expired.map(\.rowKey) { try Self.delete(row, connection) }
                return matching.count
            }
        }
    }

    /// How many records fail authentication (tampered, moved or copied from elsewhere).
    /// Queries skip them; reading one by name throws ``CofferError/integrityFailure``.
    public func unreadableRecordCount() throws(CofferError) -> Int {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try scanRecords(connection, keys, now: configuration.now()).unreadable
        }
    }

    // MARK: Records

    /// Where a record is read from: the row of an item, or a row key found by a search.
    enum RecordAddress {
        case item(ItemID)
        case row([UInt8])
    }

    struct OpenedRecord {
        /// The blind-index input of the item asked for, whose keyed hash is ``rowKey``; `nil`
        /// when the record was read by row key.
        let indexInput: [UInt8]?
        let rowKey: [UInt8]
        let sealed: [UInt8]
        var plaintext: [UInt8]
    }

    struct ScannedRecord {
        let rowKey: [UInt8]
        let sealed: [UInt8]
        let attributes: ItemAttributes
        let access: ItemAccess

        var stored: StoredItem { StoredItem(rowKey: rowKey, attributes: attributes, access: access) }
    }

    struct Scan {
        var live: [ScannedRecord] = []
        var expired: [ScannedRecord] = []
        var unreadable = 0
    }

    /// Reads and authenticates an item's record. `nil` means absent, and is returned only
    /// after confirming the keys are current: a miss under stale keys is not "absent".
    func openRecord(at address: RecordAddress, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) -> OpenedRecord? {
        let indexInput: [UInt8]?
        let rowKey: [UInt8]
        switch address {
        case .item(let id):
            let input = VaultFormat.blindIndexInput(id)
            (indexInput, rowKey) = (input, keys.rowKey(forIndexInput: input))
        case .row(let key):
            (indexInput, rowKey) = (nil, key)
        }
        guard let sealed = try Self.record(at: rowKey, connection) else {
            try Self.verifyKeyCheck(connection, keys)
            return nil
        }
        guard let plaintext = openSealed(sealed, rowKey: rowKey, keys) else {
            try Self.verifyKeyCheck(connection, keys)
            throw .integrityFailure
        }
        return OpenedRecord(indexInput: indexInput, rowKey: rowKey, sealed: sealed, plaintext: plaintext)
    }

    /// Decodes an opened record and checks that it belongs in its row, as the plaintext form
    /// below does.
    func checkedDecode(_ opened: OpenedRecord, _ keys: VaultKeys) throws(CofferError) -> ItemRecord.Decoded {
        guard let indexInput = opened.indexInput else { return try checkedDecode(opened.plaintext, rowKey: opened.rowKey, keys) }
        let decoded = try ItemRecord.decode(opened.plaintext)
        // The record names the item asked for: the same blind-index input gives the same row
        // key, with no second keyed hash.
        guard decoded.hasIndexInput(indexInput) else { throw .integrityFailure }
        return decoded
    }

    /// Decodes an authenticated plaintext and checks that it belongs in its row: the row key
    /// recomputed from the stored class, service and account must be the row's. Either failure
    /// is an ``CofferError/integrityFailure`` of that item only.
    func checkedDecode(_ plaintext: [UInt8], rowKey: [UInt8], _ keys: VaultKeys) throws(CofferError) -> ItemRecord.Decoded {
        let decoded = try ItemRecord.decode(plaintext)
        guard keys.rowKey(forIndexInput: decoded.indexInput) == rowKey else { throw .integrityFailure }
        return decoded
    }

    /// Decrypts every record, sorting them into live, expired and unreadable (failing
    /// authentication, breaking the format's rules, or in the wrong row).
    func scanRecords(_ connection: SQLiteConnection, _ keys: VaultKeys, now: Date) throws(CofferError) -> Scan {
        try Self.verifyKeyCheck(connection, keys)
        return try connection.with("SELECT row_key, record FROM items") { statement throws(CofferError) in
            var scan = Scan()
            while try statement.step() {
                let rowKey = statement.blob(at: 0)
                let sealed = statement.blob(at: 1)
                guard var plaintext = openSealed(sealed, rowKey: rowKey, keys) else {
                    scan.unreadable += 1
                    continue
                }
                defer { SecretMemory.zero(&plaintext) }
                guard let decoded = try? checkedDecode(plaintext, rowKey: rowKey, keys) else {
                    scan.unreadable += 1
                    continue
                }
                let record = ScannedRecord(rowKey: rowKey, sealed: sealed, attributes: decoded.attributes, access: decoded.access)
                if decoded.isExpired(at: now) { scan.expired.append(record) } else { scan.live.append(record) }
            }
            return scan
        }
    }

    /// Authenticates and decrypts a record under its row's associated data; `nil` when it fails,
    /// or is larger than any record a writer makes (it is then not decrypted at all).
    func openSealed(_ sealed: [UInt8], rowKey: [UInt8], _ keys: VaultKeys) -> [UInt8]? {
        guard sealed.count <= Limits.maxRecordBytes else { return nil }
        return AEAD.open(sealed, key: keys.recordKey, associatedData: itemAssociatedDataPrefix + rowKey)
    }

    static func record(at rowKey: [UInt8], _ connection: SQLiteConnection) throws(CofferError) -> [UInt8]? {
        try connection.with("SELECT record FROM items WHERE row_key = ?1") { statement throws(CofferError) in
            try statement.bind(.blob(rowKey))
            return try statement.step() ? statement.blob(at: 0) : nil
        }
    }

    /// Deletes an expired record and its index rows, only if it is still the same record (a
    /// concurrent process may have set the item anew). A version 1 vault stays version 1.
    static func purge(_ rowKey: [UInt8], _ sealed: [UInt8], _ connection: SQLiteConnection) throws(CofferError) {
        try connection.transaction { () throws(CofferError) in
            try connection.with("DELETE FROM items WHERE row_key = ?1 AND record = ?2") { statement throws(CofferError) in
                try statement.bind(.blob(rowKey), .blob(sealed))
                try statement.run()
            }
            if connection.changes > 0, try formatVersion(connection) >= 2 { try AttributeIndex.remove(rowKey: rowKey, connection) }
        }
    }

    /// Deletes a record and its index rows, inside a write transaction after
    /// ``prepareItemWrite(_:_:)``. Returns whether there was a record.
    @discardableResult
    static func delete(_ rowKey: [UInt8], _ connection: SQLiteConnection) throws(CofferError) -> Bool {
        try connection.with("DELETE FROM items WHERE row_key = ?1") { statement throws(CofferError) in
            try statement.bind(.blob(rowKey))
            try statement.run()
        }
        let deleted = connection.changes > 0
        try AttributeIndex.remove(rowKey: rowKey, connection)
        return deleted
    }
}
