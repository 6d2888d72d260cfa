import Foundation

/// One row of the `key_slots` table.
package struct SlotRow: Sendable {
    var id: Int64
    var kind: String
    var cost: PassphraseCost?
    var salt: [UInt8]?
    /// A `systemd-creds` slot's sealed key-encryption key.
    var sealedKEK: SealedKEK?
    var wrappedKey: [UInt8]
    var created: Int64

    var knownKind: KeySlotKind? { KeySlotKind(rawValue: kind) }

    var publicSlot: KeySlot {
        let publicKind: KeySlot.Kind = switch knownKind {
        case .passphrase: .passphrase(cost ?? PassphraseCost(operations: 0, memoryBytes: 0))
        case .keyFile: .keyFile
        case .key: .key
        case .secretService: .secretService
        case .systemdCreds:
            sealedKEK.map { .systemdCredential($0.binding) }
                ?? .systemdCredential(SystemdCredentials.Binding(keySource: .unknown, pcrs: [], tpm2Device: nil))
        case nil: .other(kind)
        }
        return KeySlot(id: Int(id), kind: publicKind, created: Date(timeIntervalSince1970: TimeInterval(created)))
    }

    /// The most key slots a vault may have, of all kinds.
    static let maxSlots = 64
    /// The size of every wrapped vault key: a sealed box of 32 bytes.
    package static let wrappedKeyLength = 32 + AEAD.overhead

    /// Every slot, in ascending slot order: the order in which a credential tries them.
    ///
    /// Throws ``CofferError/corruptVault(reason:)`` for a slot that breaks the format's rules:
    /// see ``validated(id:kind:kdf:opslimit:memlimit:salt:wrappedKey:created:)``.
    static func all(_ connection: SQLiteConnection) throws(CofferError) -> [SlotRow] {
        try connection.with(
            "SELECT slot_id, kind, kdf, opslimit, memlimit, salt, wrapped_key, created_at FROM key_slots ORDER BY slot_id LIMIT \(maxSlots + 1)"
        ) { statement throws(CofferError) in
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
    /// kind with a wrapped key of the wrong size, a passphrase slot with another KDF, a salt of
    /// the wrong size or a cost out of range, a `systemd-creds` slot without its credential
    /// or with a malformed `kdf`, or another known kind with KDF columns set.
    /// Unknown kinds pass unchecked.
    package static func validated(
        id: Int64, kind: String, kdf: String?, opslimit: Int64?, memlimit: Int64?, salt: [UInt8]?,
        wrappedKey: [UInt8], created: Int64
    ) throws(CofferError) -> SlotRow {
        var row = SlotRow(id: id, kind: kind, wrappedKey: wrappedKey, created: created)
        guard let knownKind = row.knownKind else { return row }
        guard wrappedKey.count == wrappedKeyLength else {
            throw .corruptVault(reason: "key slot \(id) has a wrapped key of the wrong size")
        }
        if knownKind == .systemdCreds {
            guard opslimit == nil, memlimit == nil, let sealed = SealedKEK(kdf: kdf, credential: salt) else {
                throw .corruptVault(reason: "key slot \(id) (\(knownKind.rawValue)) has malformed credential columns")
            }
            row.sealedKEK = sealed
            return row
        }
        guard knownKind == .passphrase else {
            guard kdf == nil, opslimit == nil, memlimit == nil, salt == nil else {
                throw .corruptVault(reason: "key slot \(id) (\(knownKind.rawValue)) has KDF parameters")
            }
            return row
        }
        guard kdf == Argon2id.algorithmName else {
            throw .corruptVault(reason: "key slot \(id) names an unknown KDF")
        }
        guard let opslimit, let memlimit, let salt, salt.count == Argon2id.saltLength else {
            throw .corruptVault(reason: "key slot \(id) has KDF parameters out of range")
        }
        let cost = PassphraseCost(operations: UInt64(clamping: opslimit), memoryBytes: UInt64(clamping: memlimit))
        guard cost.isAccepted else { throw .corruptVault(reason: "key slot \(id) has KDF parameters out of range") }
        row.cost = cost
        row.salt = salt
        return row
    }

    /// The `kdf`, `opslimit`, `memlimit` and `salt` columns: set for passphrase slots, the
    /// credential for `systemd-creds` slots (4.5), NULL otherwise.
    private var kdfColumns: [SQLiteValue] {
        if let sealedKEK { return [.text(sealedKEK.kdfColumn), .null, .null, .blob(sealedKEK.credential)] }
        guard let cost, let salt else { return [.null, .null, .null, .null] }
        return [.text(Argon2id.algorithmName), .integer(Int64(cost.operations)), .integer(Int64(cost.memoryBytes)), .blob(salt)]
    }

    /// The id the next inserted slot gets: one more than the highest, as SQLite would choose.
    /// A `systemd-creds` slot needs it before the insert, to name its credential.
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
            try statement.bind([id == 0 ? .null : .integer(id), .text(kind)] + kdfColumns + [.blob(wrappedKey), .integer(created)])
            guard try statement.step() else { throw .corruptVault(reason: "slot insert returned no id") }
            let id = statement.int64(at: 0)
            try statement.run()
            return id
        }
    }

    /// Replaces this slot's wrapping, only if the stored wrapping is still `previous`.
    /// Returns whether the row was updated.
    func replace(previous: [UInt8], _ connection: SQLiteConnection) throws(CofferError) -> Bool {
        try connection.with(
            """
            UPDATE key_slots SET kdf = ?2, opslimit = ?3, memlimit = ?4, salt = ?5, wrapped_key = ?6
            WHERE slot_id = ?1 AND wrapped_key = ?7
            """
        ) { statement throws(CofferError) in
            try statement.bind([.integer(id)] + kdfColumns + [.blob(wrappedKey), .blob(previous)])
            try statement.run()
            return connection.changes == 1
        }
    }
}
