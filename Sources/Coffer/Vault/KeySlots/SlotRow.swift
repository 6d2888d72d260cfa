import FoundationEssentials

/// One row of the `key_slots` table, of any kind; its kind (``KeySlotKinds``) gives the
/// meaning of its ``parameters``.
package struct SlotRow: Sendable {
    var id: Int64
    /// The `kind` column.
    var kind: String
    var parameters: SlotParameters
    var wrappedKey: [UInt8]
    var created: Int64

    /// The row's kind, or `nil` for a kind this version does not know.
    var knownKind: (any KeySlotKind.Type)? { KeySlotKinds.named(kind) }

    var publicSlot: KeySlot {
        let (publicKind, summary) = knownKind?.describe(parameters) ?? (.other(kind), "\(kind) (unknown kind)")
        return KeySlot(
            id: Int(id), kind: publicKind, created: Date(timeIntervalSince1970: TimeInterval(created)),
            kindName: kind, summary: summary)
    }

    /// The most key slots a vault may have, of all kinds.
    static let maxSlots = 64
    /// The size of every wrapped vault key: a sealed box of 32 bytes.
    package static let wrappedKeyLength = 32 + AEAD.overhead

    /// `vaultKey` sealed under `kek` for a slot of kind `kind` (docs/vault-format.md, 4.2).
    static func wrap(_ vaultKey: SecureBytes, kek: SecureBytes, kind: String, vaultID: [UInt8]) -> [UInt8] {
        AEAD.seal(vaultKey, key: kek, associatedData: VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind))
    }

    /// The vault key this row wraps, if `kek` opens it.
    func vaultKey(kek: SecureBytes, vaultID: [UInt8]) -> SecureBytes? {
        AEAD.openSecret(wrappedKey, key: kek, associatedData: VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind))
    }

    /// Every slot, in ascending slot order: the order in which a credential tries them.
    ///
    /// Throws ``CofferError/corruptVault(reason:)`` for a slot that breaks the format's rules:
    /// see ``validated(id:kind:kdf:opslimit:memlimit:salt:wrappedKey:created:)``.
    static func all(_ connection: SQLiteConnection) throws(CofferError) -> [SlotRow] {
        try connection.with(
            "SELECT slot_id, kind, kdf, opslimit, memlimit, salt, wrapped_key, created_at FROM key_slots ORDER BY slot_id LIMIT ?1"
        ) { statement throws(CofferError) in
            try statement.bind(.integer(Int64(maxSlots + 1)))
            var rows: [SlotRow] = []
            while try statement.step() {
                guard rows.count < maxSlots else { throw .corruptVault(reason: "more than \(maxSlots) key slots") }
                let isNull = statement.isNull(at:)
                rows.append(try validated(
                    id: statement.int64(at: 0), kind: statement.text(at: 1) ?? "",
                    kdf: isNull(2) ? nil : statement.text(at: 2) ?? "",
                    opslimit: isNull(3) ? nil : statement.int64(at: 3), memlimit: isNull(4) ? nil : statement.int64(at: 4),
                    salt: isNull(5) ? nil : statement.blob(at: 5), wrappedKey: statement.blob(at: 6), created: statement.int64(at: 7)))
            }
            return rows
        }
    }

    /// One row's columns as a slot, checked against the format's rules (docs/vault-format.md,
    /// 4.1); `nil` stands for SQL NULL. Throws ``CofferError/corruptVault(reason:)`` for a known
    /// kind with a wrapped key of the wrong size, or with parameters its kind refuses
    /// (``KeySlotKind/check(_:slot:)``). Unknown kinds pass unchecked.
    package static func validated(
        id: Int64, kind: String, kdf: String?, opslimit: Int64?, memlimit: Int64?, salt: [UInt8]?,
        wrappedKey: [UInt8], created: Int64
    ) throws(CofferError) -> SlotRow {
        let row = SlotRow(
            id: id, kind: kind, parameters: SlotParameters(kdf: kdf, opslimit: opslimit, memlimit: memlimit, salt: salt),
            wrappedKey: wrappedKey, created: created)
        guard let knownKind = row.knownKind else { return row }
        guard wrappedKey.count == wrappedKeyLength else {
            throw .corruptVault(reason: "key slot \(id) has a wrapped key of the wrong size")
        }
        try knownKind.check(row.parameters, slot: id)
        return row
    }

    /// The id the next inserted slot gets: one more than the highest, as SQLite would choose.
    /// A slot whose kind binds its id into its parameters needs it before the insert.
    static func nextID(_ connection: SQLiteConnection) throws(CofferError) -> Int64 {
        try connection.integer("SELECT coalesce(max(slot_id), 0) + 1 FROM key_slots") ?? 1
    }

    /// Inserts a new slot and returns its id: ``id`` when it is set (not 0), else SQLite's choice.
    func insert(_ connection: SQLiteConnection) throws(CofferError) -> Int64 {
        try connection.with(
            """
            INSERT INTO key_slots (slot_id, kind, kdf, opslimit, memlimit, salt, wrapped_key, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING slot_id
            """
        ) { statement throws(CofferError) in
            try statement.bind([id == 0 ? .null : .integer(id), .text(kind)] + parameters.values + [.blob(wrappedKey), .integer(created)])
            guard try statement.step() else { throw .corruptVault(reason: "slot insert returned no id") }
            let id = statement.int64(at: 0)
            try statement.run()
            return id
        }
    }

    /// Replaces this slot's parameters and wrapping, only if the stored wrapping is still
    /// `previous`. Returns whether the row was updated.
    func replace(previous: [UInt8], _ connection: SQLiteConnection) throws(CofferError) -> Bool {
        try connection.with(
            """
            UPDATE key_slots SET kdf = ?2, opslimit = ?3, memlimit = ?4, salt = ?5, wrapped_key = ?6
            WHERE slot_id = ?1 AND wrapped_key = ?7
            """
        ) { statement throws(CofferError) in
            try statement.bind([.integer(id)] + parameters.values + [.blob(wrappedKey), .blob(previous)])
            try statement.run()
            return connection.changes == 1
        }
    }
}
