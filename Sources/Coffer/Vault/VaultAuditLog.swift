import CofferBase
import FoundationEssentials

extension Vault {
    /// Appends an entry to the vault's audit log (docs/vault-format.md, 8.2), in its own
    /// transaction, and returns once it is committed: an entry survives the process being
    /// killed as an item does. The commit is not fsynced (`synchronous = NORMAL`), so a power
    /// loss may drop the newest entries. The log keeps the newest 10,000 entries; older ones go
    /// in the same transaction. Migrates an older vault to format version 3 first.
    package func appendAudit(_ entry: AuditEntry) throws(CofferError) {
        try entry.validate()
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.withoutSyncOnCommit { () throws(CofferError) in
                try connection.transaction { () throws(CofferError) in
                    try prepareItemWrite(connection, keys)
                    try insertAudit(entry, connection, keys)
                }
            }
        }
    }

    /// Appends a validated `entry` as the newest, dropping the oldest beyond 10,000, inside the
    /// caller's write transaction after ``prepareItemWrite(_:_:)``.
    func insertAudit(_ entry: AuditEntry, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        var plaintext = entry.encoded
        defer { SecretMemory.zero(&plaintext) }
        let sequence = (try connection.integer("SELECT max(sequence) FROM audit_log") ?? 0) + 1
        try insertAuditEntry(AEAD.seal(plaintext, key: keys.recordKey, associatedData: auditAssociatedData(sequence)), sequence: sequence, connection)
        try connection.with("DELETE FROM audit_log WHERE sequence <= ?1") { statement throws(CofferError) in
            try statement.bind(.integer(sequence - VaultFormat.maxAuditEntries))
            try statement.run()
        }
    }

    /// The audit log's entries, newest first: those at or after `since` (every one when `nil`),
    /// at most `limit` of them. Entries that do not open or break the format's rules are
    /// skipped; ``verify()`` reports them. A vault from before format version 3 has none.
    package func auditLog(since: Date? = nil, limit: Int = Int.max) throws(CofferError) -> [AuditEntry] {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.readTransaction { () throws(CofferError) in
                guard try Self.formatVersion(connection) >= VaultFormat.accessVersion else { return [] }
                try Self.verifyKeyCheck(connection, keys)
                var entries: [AuditEntry] = []
                try connection.with("SELECT sequence, entry FROM audit_log ORDER BY sequence DESC") { statement throws(CofferError) in
                    while entries.count < limit, try statement.step() {
                        guard let entry = try? openAuditEntry(statement.blob(at: 1), sequence: statement.int64(at: 0), keys) else { continue }
                        if let since, entry.time < since { continue }
                        entries.append(entry)
                    }
                }
                return entries
            }
        }
    }

    /// Opens and decodes one entry. Throws ``CofferError/integrityFailure`` for an entry too large
    /// to be one, one that does not open under its own sequence's associated data, or one that
    /// breaks the format's rules.
    func openAuditEntry(_ sealed: [UInt8], sequence: Int64, _ keys: VaultKeys) throws(CofferError) -> AuditEntry {
        guard sealed.count <= VaultFormat.maxSealedAuditEntryBytes,
              var plaintext = AEAD.open(sealed, key: keys.recordKey, associatedData: auditAssociatedData(sequence))
        else { throw .integrityFailure }
        defer { SecretMemory.zero(&plaintext) }
        return try AuditEntry.decode(plaintext)
    }

    /// Re-encrypts every audit entry that opens under `old` under `new`, in the caller's rotation
    /// transaction. An entry that does not open is left as it is: still unreadable, still reported.
    func resealAuditLog(from old: VaultKeys, to new: VaultKeys, _ connection: SQLiteConnection) throws(CofferError) {
        let rows = try connection.with("SELECT sequence, entry FROM audit_log") { statement throws(CofferError) in
            var rows: [(sequence: Int64, sealed: [UInt8])] = []
            while try statement.step() { rows.append((statement.int64(at: 0), statement.blob(at: 1))) }
            return rows
        }
        for row in rows {
            let associatedData = auditAssociatedData(row.sequence)
            guard row.sealed.count <= VaultFormat.maxSealedAuditEntryBytes,
                  var plaintext = AEAD.open(row.sealed, key: old.recordKey, associatedData: associatedData) else { continue }
            defer { SecretMemory.zero(&plaintext) }
            try insertAuditEntry(AEAD.seal(plaintext, key: new.recordKey, associatedData: associatedData), sequence: row.sequence, connection)
        }
    }

    private func insertAuditEntry(_ sealed: [UInt8], sequence: Int64, _ connection: SQLiteConnection) throws(CofferError) {
        try connection.with(
            "INSERT INTO audit_log (sequence, entry) VALUES (?1, ?2) ON CONFLICT (sequence) DO UPDATE SET entry = excluded.entry"
        ) { statement throws(CofferError) in
            try statement.bind(.integer(sequence), .blob(sealed))
            try statement.run()
        }
    }

    private func auditAssociatedData(_ sequence: Int64) -> [UInt8] {
        VaultFormat.auditAssociatedData(vaultID: vaultID, sequence: sequence)
    }
}
