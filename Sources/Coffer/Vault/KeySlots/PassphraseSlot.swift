import FoundationEssentials

/// Passphrase slots, `passphrase`: the KEK is Argon2id of the passphrase, with the slot's salt
/// and cost (docs/vault-format.md, 4.1). Their costs together stay within the ``UnlockBudget``.
enum PassphraseSlot: KeySlotKind {
    static let name = "passphrase"
    static var mismatch: CofferError { .wrongPassphrase }

    /// `kdf` is `argon2id13`, `salt` 16 bytes, and `opslimit` and `memlimit` a cost that
    /// ``PassphraseCost/isAccepted``.
    static func check(_ parameters: SlotParameters, slot: Int64) throws(CofferError) {
        guard parameters.kdf == Argon2id.algorithmName else {
            throw .corruptVault(reason: "key slot \(slot) names an unknown KDF")
        }
        guard let cost = cost(parameters), let salt = parameters.salt, salt.count == Argon2id.saltLength, cost.isAccepted else {
            throw .corruptVault(reason: "key slot \(slot) has KDF parameters out of range")
        }
    }

    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String) {
        let cost = cost(parameters) ?? PassphraseCost(operations: 0, memoryBytes: 0)
        return (.passphrase(cost), "passphrase, \(cost)")
    }

    /// A file with passphrase slots beyond the ``UnlockBudget`` is refused before any KDF runs.
    static func checkBeforeOpening(_ rows: [SlotRow]) throws(CofferError) {
        try UnlockBudget.check(rows.passphraseCosts)
    }

    /// A new passphrase slot must keep the passphrase slots within the ``UnlockBudget``.
    static func checkAdding(_ parameters: SlotParameters, to rows: [SlotRow]) throws(CofferError) {
        try UnlockBudget.checkChange(rows.passphraseCosts + [cost(parameters)].compactMap { $0 })
    }

    /// The cost in `opslimit` and `memlimit`; `nil` when either is NULL.
    static func cost(_ parameters: SlotParameters) -> PassphraseCost? {
        guard let operations = parameters.opslimit, let memory = parameters.memlimit else { return nil }
        return PassphraseCost(operations: UInt64(clamping: operations), memoryBytes: UInt64(clamping: memory))
    }
}

/// A passphrase: in Unicode NFC, UTF-8.
struct PassphraseCredential: CredentialSource, SlotOpener {
    let passphrase: SecureBytes

    var kind: any KeySlotKind.Type { PassphraseSlot.self }
    var description: String { "passphrase(redacted)" }

    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes? {
        guard let salt = row.parameters.salt, let cost = PassphraseSlot.cost(row.parameters) else {
            throw .corruptVault(reason: "passphrase slot without KDF parameters")
        }
        return try derive(salt: salt, cost: cost)
    }

    /// A random salt, and `cost`, which must be one ``PassphraseCost/isAccepted``.
    func newKeyEncryptionKey(cost: PassphraseCost) throws(CofferError) -> (kek: SecureBytes, parameters: SlotParameters) {
        guard cost.isAccepted else { throw .invalidArgument(reason: "passphrase cost out of range: \(cost)") }
        let salt = RandomBytes.make(Argon2id.saltLength)
        let parameters = SlotParameters(
            kdf: Argon2id.algorithmName, opslimit: Int64(cost.operations), memlimit: Int64(cost.memoryBytes), salt: salt)
        return (try derive(salt: salt, cost: cost), parameters)
    }

    private func derive(salt: [UInt8], cost: PassphraseCost) throws(CofferError) -> SecureBytes {
        guard let key = Argon2id.deriveKey(from: passphrase, salt: salt, cost: cost) else {
            throw .storageUnavailable(reason: "not enough memory for Argon2id (\(cost))")
        }
        return key
    }
}

extension VaultCredential {
    /// A passphrase, stretched with Argon2id. It is normalised to Unicode NFC first.
    public static func passphrase(_ passphrase: String) -> VaultCredential {
        VaultCredential(PassphraseCredential(passphrase: SecureBytes(copying: Normalization.nfc(passphrase).utf8)))
    }

    /// A passphrase given as UTF-8 bytes, for example as read from a file descriptor or a
    /// terminal, so that it never becomes a `String` the app cannot wipe.
    ///
    /// Bytes that are not valid UTF-8 are refused with ``CofferError/invalidArgument(reason:)``:
    /// two different byte strings never open the same slot. A passphrase with non-ASCII
    /// characters is normalised to NFC through one short-lived `String`, since Unicode
    /// normalisation needs one; an ASCII passphrase is used as it is.
    public static func passphrase(utf8 bytes: SecureBytes) throws(CofferError) -> VaultCredential {
        guard bytes.isValidUTF8 else { throw .invalidArgument(reason: "the passphrase is not valid UTF-8") }
        guard !bytes.isASCII else { return VaultCredential(PassphraseCredential(passphrase: bytes)) }
        let normalized = bytes.withUnsafeBytes { raw in
            Normalization.nfc(String(decoding: raw, as: UTF8.self))
        }
        return VaultCredential(PassphraseCredential(passphrase: SecureBytes(copying: normalized.utf8)))
    }
}

extension Vault {
    /// Changes the passphrase of the slot that `old` opens. Only that slot's wrapping of the
    /// vault key is rewritten, so the cost does not depend on the number of items. Works while locked.
    ///
    /// The slot keeps its Argon2id cost unless `cost` gives another; the slots must stay within
    /// the ``UnlockBudget``. Both credentials must be passphrases.
    ///
    /// Someone who copied the vault file before the change can still open that copy with the
    /// old passphrase; call ``rotateVaultKey(credentials:)`` when the old passphrase leaked.
    public func changePassphrase(from old: VaultCredential, to new: VaultCredential, cost: PassphraseCost? = nil) throws(CofferError) {
        guard let old = old.source as? PassphraseCredential, let new = new.source as? PassphraseCredential else {
            throw .invalidArgument(reason: "changePassphrase takes two passphrases")
        }
        let rows = try withConnection { connection throws(CofferError) in try SlotRow.all(connection) }
        let opened = try old.unwrap(rows, vaultID: vaultID)
        let slotCost = cost ?? PassphraseSlot.cost(opened.slot.parameters) ?? configuration.passphraseCost
        try UnlockBudget.checkChange(rows.filter { $0.id != opened.slot.id }.passphraseCosts + [slotCost])
        var replacement = try new.makeSlot(wrapping: opened.vaultKey, vaultID: vaultID, cost: slotCost, now: configuration.now()).row
        replacement.id = opened.slot.id
        let replaced = try withConnection { connection throws(CofferError) in
            let replaced = try connection.transaction { () throws(CofferError) in
                try replacement.replace(previous: opened.slot.wrappedKey, connection)
            }
            Self.truncateLog(connection)
            return replaced
        }
        guard replaced else {
            throw .storageUnavailable(reason: "the key slot changed during the passphrase change; try again")
        }
    }

    /// Changes a passphrase given as text; see ``changePassphrase(from:to:cost:)-(VaultCredential,_,_)``.
    public func changePassphrase(from old: String, to new: String, cost: PassphraseCost? = nil) throws(CofferError) {
        try changePassphrase(from: .passphrase(old), to: .passphrase(new), cost: cost)
    }
}

extension [SlotRow] {
    /// The cost of every passphrase slot.
    var passphraseCosts: [PassphraseCost] {
        compactMap { $0.kind == PassphraseSlot.name ? PassphraseSlot.cost($0.parameters) : nil }
    }

    /// The cost a new passphrase slot gets when none is asked for: the highest (most work)
    /// of the existing passphrase slots, so adding or changing a passphrase never weakens the
    /// vault; `fallback` when there is none.
    func strongestPassphraseCost(or fallback: PassphraseCost) -> PassphraseCost {
        passphraseCosts.max { ($0.work, $0.memoryBytes) < ($1.work, $1.memoryBytes) } ?? fallback
    }
}
