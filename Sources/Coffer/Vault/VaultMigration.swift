import CofferBase

extension Vault {
    /// The start of every write transaction that touches items: checks that the keys are still
    /// the vault's, then brings a version 1 vault to version 2, so that the attribute index is
    /// there to keep.
    ///
    /// The version is read inside the transaction, so a process that opened the vault before
    /// another migrated it still writes the index.
    func prepareItemWrite(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        try Self.verifyKeyCheck(connection, keys)
        guard try Self.formatVersion(connection) < VaultFormat.version else { return }
        try migrateToVersion2(connection, keys)
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
        try connection.execute("PRAGMA user_version = \(VaultFormat.version)")
    }
}
