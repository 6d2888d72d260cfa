import CofferBase
import FoundationEssentials

extension Vault {
    /// The vault's key slots. Works while locked.
    public func keySlots() throws(CofferError) -> [KeySlot] {
        try withConnection { connection throws(CofferError) in try SlotRow.all(connection).map(\.publicSlot) }
    }

    /// Adds a slot that opens the vault with `credential`. The vault must be unlocked.
    ///
    /// A passphrase slot costs `cost` when given; otherwise the highest cost among the vault's
    /// passphrase slots, so a new passphrase is never cheaper to guess than the existing ones
    /// (the configuration's ``Configuration/passphraseCost`` when there are none). The slots
    /// must stay within the ``UnlockBudget``, or this throws ``CofferError/invalidArgument(reason:)``.
    ///
    /// For ``VaultCredential/secretService(_:)``, a random key-encryption key goes into the
    /// Secret Service, named by the vault's id and the new slot's number, before the slot is
    /// committed: if the service cannot take it, the call throws and the vault is unchanged.
    /// For ``VaultCredential/systemdCredential(_:)``, `systemd-creds encrypt` seals a random
    /// key-encryption key inside the slot's transaction (other writers wait for it, at most its
    /// timeout); if it fails or times out, the vault is unchanged too.
    @discardableResult
    public func addKeySlot(_ credential: VaultCredential, cost: PassphraseCost? = nil) throws(CofferError) -> KeySlot {
        let opener = try credential.source.opener()
        let keys = try withUnlockedKeys { _, keys throws(CofferError) in keys }
        let existing = try withConnection { connection throws(CofferError) in try SlotRow.all(connection) }
        let slotCost = cost ?? existing.strongestPassphraseCost(or: configuration.passphraseCost)
        var (row, kek) = try opener.makeSlot(wrapping: keys.vaultKey, vaultID: vaultID, cost: slotCost, now: configuration.now())
        row.id = try withUnlockedKeys { connection, current throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try Self.verifyKeyCheck(connection, current)
                let rows = try SlotRow.all(connection)
                guard rows.count < SlotRow.maxSlots else {
                    throw .invalidArgument(reason: "a vault has at most \(SlotRow.maxSlots) key slots")
                }
                try opener.kind.checkAdding(row.parameters, to: rows)
                // A kind may bind the slot's id into what it seals, so the id is known before
                // the insert; the write lock held since BEGIN IMMEDIATE keeps it free meanwhile.
                row.id = try SlotRow.nextID(connection)
                try opener.seal(kek, into: &row, vaultID: vaultID)
                let id = try row.insert(connection)
                try opener.keep(kek, forSlot: id, vaultID: vaultID)
                return id
            }
        }
        return row.publicSlot
    }

    /// Removes a key slot. The vault must be unlocked, and the last slot cannot be removed.
    ///
    /// Removing a Secret Service slot also deletes its key from the Secret Service when the
    /// service is available (`secretService` says how to reach it). When it is not, the key
    /// stays there: it opens nothing without the removed slot, though it still opens copies of
    /// the vault file made before the removal. Delete it by hand if that matters:
    /// `secret-tool clear xdg:schema coffer.VaultKey coffer:vault <vault id>`.
    public func removeKeySlot(id: Int, secretService: SecretService.Configuration = SecretService.Configuration()) throws(CofferError) {
        let removed = try withUnlockedKeys { connection, keys throws(CofferError) -> SlotRow in
            let removed = try connection.transaction { () throws(CofferError) -> SlotRow in
                try Self.verifyKeyCheck(connection, keys)
                let rows = try SlotRow.all(connection)
                guard let row = rows.first(where: { $0.id == Int64(id) }) else { throw .invalidArgument(reason: "no key slot \(id)") }
                guard rows.count > 1 else { throw .invalidArgument(reason: "cannot remove the last key slot") }
                try connection.with("DELETE FROM key_slots WHERE slot_id = ?1") { statement throws(CofferError) in
                    try statement.bind(.integer(Int64(id)))
                    try statement.run()
                }
                return row
            }
            Self.truncateLog(connection)
            return removed
        }
        removed.knownKind?.forget(removed, vaultID: vaultID, secretService: secretService)
    }

    /// Replaces the vault key with a new random one: every item is re-encrypted and re-indexed,
    /// the access policy and the audit log re-encrypted, and every slot rewrapped, in one
    /// transaction. Expired items are dropped; audit entries that do not open stay as they are.
    ///
    /// `credentials` must open every slot, so that none is lost; otherwise this throws
    /// ``CofferError/invalidArgument(reason:)`` and changes nothing. It also throws
    /// ``CofferError/integrityFailure`` and changes nothing if any record is unreadable, and
    /// ``CofferError/corruptVault(reason:)`` if the access policy does not open (set it anew
    /// with `setAccessPolicy` first).
    /// Other processes that have the vault unlocked find it locked afterwards.
    public func rotateVaultKey(credentials: [VaultCredential]) throws(CofferError) {
        let openers = try credentials.map { credential throws(CofferError) in try credential.source.opener() }
        let current = try withUnlockedKeys { _, keys throws(CofferError) in keys }
        let rows = try withConnection { connection throws(CofferError) in try SlotRow.all(connection) }

        let next = VaultKeys.generate()
        var rewrapped: [(row: SlotRow, wrapped: [UInt8])] = []
        for row in rows {
            guard let kek = try keyEncryptionKey(opening: row, with: openers, expecting: current.vaultKey) else {
                throw .invalidArgument(reason: "key slot \(row.id) (\(row.kind)) is not opened by any credential given")
            }
            rewrapped.append((row, SlotRow.wrap(next.vaultKey, kek: kek, kind: row.kind, vaultID: vaultID)))
        }

        let now = configuration.now()
        try state.withLock { state throws(CofferError) in
            guard let keys = state.keys, keys.keyCheck == current.keyCheck else { throw .locked }
            let connection = state.connection
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                guard try SlotRow.all(connection).map(\.wrappedKey) == rows.map(\.wrappedKey) else {
                    throw .storageUnavailable(reason: "the key slots changed during rotation; try again")
                }
                let scan = try scanRecords(connection, keys, now: now)
                guard scan.unreadable == 0 else { throw .integrityFailure }
                try connection.execute("DELETE FROM items")
                try connection.execute("DELETE FROM \(AttributeIndex.table)")
                for record in scan.live { try reseal(record, from: keys, to: next, connection) }
                try writePolicy(try readPolicy(connection, keys), connection, next)
                try resealAuditLog(from: keys, to: next, connection)
                for (row, wrapped) in rewrapped {
                    var updated = row
                    updated.wrappedKey = wrapped
                    guard try updated.replace(previous: row.wrappedKey, connection) else {
                        throw .storageUnavailable(reason: "the key slots changed during rotation; try again")
                    }
                }
                try connection.with("UPDATE vault SET key_check = ?1 WHERE singleton = 1") { statement throws(CofferError) in
                    try statement.bind(.blob(next.keyCheck))
                    try statement.run()
                }
            }
            state.keys = next
            Self.truncateLog(connection)
        }
    }

    /// The KEK of `row`, if one of `openers` opens it to `vaultKey`.
    private func keyEncryptionKey(
        opening row: SlotRow, with openers: [any SlotOpener], expecting vaultKey: SecureBytes
    ) throws(CofferError) -> SecureBytes? {
        for opener in openers where opener.kind.name == row.kind {
            guard let kek = try opener.keyEncryptionKey(for: row, vaultID: vaultID) else { continue }
            if row.vaultKey(kek: kek, vaultID: vaultID) == vaultKey { return kek }
        }
        return nil
    }

    /// Moves one record from the old keys to the new: new row key, new record key, new nonce,
    /// new index tokens.
    private func reseal(
        _ record: ScannedRecord, from old: VaultKeys, to new: VaultKeys, _ connection: SQLiteConnection
    ) throws(CofferError) {
        guard var plaintext = openSealed(record.sealed, rowKey: record.rowKey, old) else {
            throw .integrityFailure
        }
        defer { SecretMemory.zero(&plaintext) }
        let rowKey = new.rowKey(for: record.attributes.id)
        let resealed = AEAD.seal(
            plaintext, key: new.recordKey, associatedData: itemAssociatedDataPrefix + rowKey)
        try connection.with("INSERT INTO items (row_key, record) VALUES (?1, ?2)") { statement throws(CofferError) in
            try statement.bind(.blob(rowKey), .blob(resealed))
            try statement.run()
        }
        try AttributeIndex.insert(record.attributes, rowKey: rowKey, new, connection)
    }
}
