import Foundation

/// A ``VaultCredential`` turned into what opens, and makes, slots of its kind.
struct SlotOpener: Sendable {
    let kind: KeySlotKind
    private let secret: SecureBytes

    /// Reads the key file or normalises the passphrase. Reading is the only I/O.
    init(_ credential: VaultCredential) throws(CofferError) {
        switch credential {
        case .passphrase(let passphrase):
            kind = .passphrase
            secret = SecureBytes(copying: Normalization.nfc(passphrase).utf8)
        case .keyFile(let url):
            kind = .keyFile
            secret = try KeyFile.read(at: url)
        case .key(let key):
            guard key.count == 32 else { throw .invalidArgument(reason: "a vault key is 32 bytes") }
            kind = .key
            secret = key
        }
    }

    /// The error when this credential opens no slot.
    var mismatch: CofferError { kind == .passphrase ? .wrongPassphrase : .wrongKey }

    /// The key-encryption key for a slot of this kind (runs Argon2id for passphrases).
    func keyEncryptionKey(salt: [UInt8]?, cost: PassphraseCost?) throws(CofferError) -> SecureBytes {
        guard kind == .passphrase else { return secret }
        guard let salt, let cost else { throw .corruptVault(reason: "passphrase slot without KDF parameters") }
        guard let key = Argon2id.deriveKey(from: secret, salt: salt, cost: cost) else {
            throw .storageUnavailable(reason: "not enough memory for Argon2id (\(cost))")
        }
        return key
    }

    /// Unwraps the vault key from the first slot this credential opens.
    func unwrap(_ rows: [SlotRow], vaultID: [UInt8]) throws(CofferError) -> (vaultKey: SecureBytes, slot: SlotRow, kek: SecureBytes) {
        for row in rows where row.knownKind == kind {
            let kek = try keyEncryptionKey(salt: row.salt, cost: row.cost)
            let associatedData = VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind)
            if let vaultKey = AEAD.openSecret(row.wrappedKey, key: kek, associatedData: associatedData) {
                return (vaultKey, row, kek)
            }
        }
        throw mismatch
    }

    /// A new slot row (not yet inserted) wrapping `vaultKey`.
    func makeSlot(wrapping vaultKey: SecureBytes, vaultID: [UInt8], cost: PassphraseCost, now: Date) throws(CofferError) -> SlotRow {
        var salt: [UInt8]?
        var slotCost: PassphraseCost?
        if kind == .passphrase {
            guard cost.isAccepted else { throw .invalidArgument(reason: "passphrase cost out of range: \(cost)") }
            salt = RandomBytes.make(Argon2id.saltLength)
            slotCost = cost
        }
        let kek = try keyEncryptionKey(salt: salt, cost: slotCost)
        return SlotRow(
            id: 0, kind: kind.rawValue, cost: slotCost, salt: salt,
            wrappedKey: Self.wrap(vaultKey, kek: kek, kind: kind, vaultID: vaultID),
            created: Int64(now.timeIntervalSince1970))
    }

    static func wrap(_ vaultKey: SecureBytes, kek: SecureBytes, kind: KeySlotKind, vaultID: [UInt8]) -> [UInt8] {
        AEAD.seal(vaultKey, key: kek, associatedData: VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind))
    }
}
