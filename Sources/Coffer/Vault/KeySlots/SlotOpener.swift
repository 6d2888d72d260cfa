import FoundationEssentials

/// A ``VaultCredential`` made ready to open, and make, slots of its ``kind``: one type per kind
/// of credential, in its kind's file.
protocol SlotOpener: Sendable {
    /// The kind of slot it opens.
    var kind: any KeySlotKind.Type { get }

    /// The key-encryption key of `row`, a slot of ``kind``; `nil` when this credential has none
    /// for it (a Secret Service that holds no key for the slot).
    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes?

    /// A new slot's key-encryption key and parameters. `cost` is the Argon2id cost a new
    /// passphrase slot gets; other kinds ignore it.
    func newKeyEncryptionKey(cost: PassphraseCost) throws(CofferError) -> (kek: SecureBytes, parameters: SlotParameters)

    /// Seals a new slot's KEK into the row itself, just before it is inserted; `row.id` is the
    /// id the row gets. The default has nothing to seal.
    func seal(_ kek: SecureBytes, into row: inout SlotRow, vaultID: [UInt8]) throws(CofferError)

    /// Keeps a new slot's KEK where this credential finds it again, just after the row is
    /// inserted and before it is committed. The default keeps nothing: the credential itself
    /// gives the KEK, or the row holds it sealed.
    func keep(_ kek: SecureBytes, forSlot slotID: Int64, vaultID: [UInt8]) throws(CofferError)
}

extension SlotOpener {
    func seal(_ kek: SecureBytes, into row: inout SlotRow, vaultID: [UInt8]) throws(CofferError) {}
    func keep(_ kek: SecureBytes, forSlot slotID: Int64, vaultID: [UInt8]) throws(CofferError) {}

    /// Unwraps the vault key from the first slot this credential opens, trying its kind's slots
    /// in ascending slot order, after the kind's ``KeySlotKind/checkBeforeOpening(_:)``.
    ///
    /// A slot whose key could not be had for a reason that may not hold for the next slot
    /// (``MachineKeyFailure/triesNextSlot``: another machine, TPM or PCR value) passes the turn
    /// to the next, and the first such error is thrown when none opens; any other error stops
    /// at once, so one unlock waits at most one timeout.
    func unwrap(_ rows: [SlotRow], vaultID: [UInt8]) throws(CofferError) -> (vaultKey: SecureBytes, slot: SlotRow, kek: SecureBytes) {
        try kind.checkBeforeOpening(rows)
        var firstFailure: CofferError?
        for row in rows where row.kind == kind.name {
            let kek: SecureBytes
            do {
                guard let found = try keyEncryptionKey(for: row, vaultID: vaultID) else { continue }
                kek = found
            } catch .machineKey(let failure) where failure.triesNextSlot {
                firstFailure = firstFailure ?? .machineKey(failure)
                continue
            }
            if let vaultKey = row.vaultKey(kek: kek, vaultID: vaultID) {
                return (vaultKey, row, kek)
            }
        }
        throw firstFailure ?? kind.mismatch
    }

    /// A new slot row (not yet inserted) wrapping `vaultKey`, with its key-encryption key.
    func makeSlot(wrapping vaultKey: SecureBytes, vaultID: [UInt8], cost: PassphraseCost, now: Date) throws(CofferError) -> (row: SlotRow, kek: SecureBytes) {
        let (kek, parameters) = try newKeyEncryptionKey(cost: cost)
        let row = SlotRow(
            id: 0, kind: kind.name, parameters: parameters,
            wrappedKey: SlotRow.wrap(vaultKey, kek: kek, kind: kind.name, vaultID: vaultID),
            created: Int64(now.timeIntervalSince1970))
        return (row, kek)
    }
}
