import CofferBase

extension Vault {
    /// The start of every write transaction that touches items, their access, the policy or the
    /// audit log: checks that the keys are still the vault's, then brings a version 1 or 2 vault
    /// to version 3, so that the attribute index and the access tables are there to keep.
    ///
    /// The version is read inside the transaction, so a process that opened the vault before
    /// another migrated it still writes the index and keeps owners.
    func prepareItemWrite(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        try Self.verifyKeyCheck(connection, keys)
        let version = try Self.formatVersion(connection)
        guard version < VaultFormat.version else { return }
        if version < VaultFormat.attributeIndexVersion { try migrateToVersion2(connection, keys) }
        try migrateToVersion3(connection, keys)
    }

    /// Version 1 to 2, inside the caller's write transaction: adds the attribute index, indexes
    /// every record that opens (expired ones too: their rows go with them), and sets
    /// `user_version`. Records and slots stay as they are: version 2 seals them as version 1 did
    /// (docs/vault-format.md, 7). An unreadable record gets no index rows; it was unreadable
    /// before, and `verify()` still reports it.
    private func migrateToVersion2(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        try VaultSchema.addAttributeIndex(connection)
        let readable = try connection.with("SELECT row_key, record FROM items") { statement throws(CofferError) in
            var readable: [(rowKey: [UInt8], attributes: ItemAttributes)] = []
            while try statement.step() {
                let rowKey = statement.blob(at: 0)
                guard var plaintext = openSealed(statement.blob(at: 1), rowKey: rowKey, keys) else { continue }
                defer { SecretMemory.zero(&plaintext) }
                if let decoded = try? checkedDecode(plaintext, rowKey: rowKey, keys) { readable.append((rowKey, decoded.attributes)) }
            }
            return readable
        }
        for record in readable { try AttributeIndex.insert(record.attributes, rowKey: record.rowKey, keys, connection) }
        try connection.execute("PRAGMA user_version = \(VaultFormat.attributeIndexVersion)")
    }

    /// Version 2 to 3, inside the caller's write transaction: adds the access tables with the
    /// policy ``AccessPolicy/open``, so every program keeps reading what it read before, and an
    /// empty audit log. Records stay as they are: a version 2 record is a version 3 record
    /// without an owner (docs/vault-format.md, 7.2).
    private func migrateToVersion3(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        try VaultSchema.addAccessTables(connection)
        try writePolicy(.open, connection, keys)
        try connection.execute("PRAGMA user_version = \(VaultFormat.accessVersion)")
    }
}
