import Foundation

/// A ``VaultCredential`` turned into what opens, and makes, slots of its kind.
struct SlotOpener: Sendable {
    let kind: KeySlotKind
    private let source: Source

    /// Where the key-encryption key comes from.
    private enum Source: Sendable {
        /// A passphrase (stretched per slot), a key file's bytes or a raw key.
        case secret(SecureBytes)
        /// A random KEK per slot, kept in the Secret Service.
        case secretService(SecretServiceKeyStore)
        /// A random KEK per slot, sealed by `systemd-creds` and kept in the slot row.
        case systemdCredential(SystemdCredentials.Options)
    }

    /// Reads the key file, if the credential is one. Reading is the only I/O.
    init(_ credential: VaultCredential) throws(CofferError) {
        switch credential.source {
        case .passphrase(let passphrase):
            kind = .passphrase
            source = .secret(passphrase)
        case .keyFile(let url):
            kind = .keyFile
            source = .secret(try KeyFile.read(at: url))
        case .key(let key):
            guard key.count == 32 else { throw .invalidArgument(reason: "a vault key is 32 bytes") }
            kind = .key
            source = .secret(key)
        case .secretService(let configuration):
            kind = .secretService
            source = .secretService(SecretServiceKeyStore(configuration: configuration))
        case .systemdCredential(let options):
            try options.validate()
            kind = .systemdCreds
            source = .systemdCredential(options)
        case .serviceCredential(let name):
            kind = .keyFile
            source = .secret(try ServiceCredential.read(name: name))
        }
    }

    /// The error when this credential opens no slot.
    var mismatch: CofferError { kind == .passphrase ? .wrongPassphrase : .wrongKey }

    /// The key-encryption key of `row`, a slot of this kind: Argon2id for a passphrase, the
    /// Secret Service's item for a Secret Service slot (`nil` when it holds none),
    /// `systemd-creds decrypt` of the slot's credential for a `systemd-creds` slot.
    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes? {
        switch source {
        case .secret(let secret):
            return try Self.derive(kind, secret, salt: row.salt, cost: row.cost)
        case .secretService(let keys):
            return try keys.fetch(vaultID: VaultFormat.hexIdentifier(vaultID), slot: row.id)
        case .systemdCredential(let options):
            guard let sealed = row.sealedKEK else { throw .corruptVault(reason: "key slot \(row.id) has no credential") }
            return try SystemdCredsTool(timeout: options.timeout).decrypt(
                sealed.credential, name: SystemdCredentials.credentialName(vaultID: vaultID, slot: row.id),
                tpm2Device: options.tpm2Device ?? sealed.tpm2Device)
        }
    }

    /// Unwraps the vault key from the first slot this credential opens, trying its kind's slots
    /// in ascending slot order. Passphrase slots beyond the ``UnlockBudget`` are refused before
    /// any KDF runs.
    ///
    /// A `systemd-creds` slot that does not open here (another machine, TPM or PCR value, an
    /// unreachable TPM) passes the turn to the next such slot, and its error is thrown when
    /// none opens; a missing `systemd-creds` or a TPM that does not answer in time stops at once,
    /// so one unlock waits at most one timeout.
    func unwrap(_ rows: [SlotRow], vaultID: [UInt8]) throws(CofferError) -> (vaultKey: SecureBytes, slot: SlotRow, kek: SecureBytes) {
        if kind == .passphrase { try UnlockBudget.check(rows.passphraseCosts) }
        var firstFailure: CofferError?
        for row in rows where row.knownKind == kind {
            let kek: SecureBytes
            do {
                guard let found = try keyEncryptionKey(for: row, vaultID: vaultID) else { continue }
                kek = found
            } catch .machineKey(let failure) where failure.triesNextSlot {
                firstFailure = firstFailure ?? .machineKey(failure)
                continue
            }
            let associatedData = VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind)
            if let vaultKey = AEAD.openSecret(row.wrappedKey, key: kek, associatedData: associatedData) {
                return (vaultKey, row, kek)
            }
        }
        throw firstFailure ?? mismatch
    }

    /// A new slot row (not yet inserted) wrapping `vaultKey`, with its key-encryption key.
    func makeSlot(wrapping vaultKey: SecureBytes, vaultID: [UInt8], cost: PassphraseCost, now: Date) throws(CofferError) -> (row: SlotRow, kek: SecureBytes) {
        var salt: [UInt8]?
        var slotCost: PassphraseCost?
        let kek: SecureBytes
        switch source {
        case .secret(let secret):
            if kind == .passphrase {
                guard cost.isAccepted else { throw .invalidArgument(reason: "passphrase cost out of range: \(cost)") }
                salt = RandomBytes.make(Argon2id.saltLength)
                slotCost = cost
            }
            kek = try Self.derive(kind, secret, salt: salt, cost: slotCost)
        case .secretService, .systemdCredential:
            kek = .random(count: AEAD.keyLength)
        }
        let row = SlotRow(
            id: 0, kind: kind.rawValue, cost: slotCost, salt: salt,
            wrappedKey: Self.wrap(vaultKey, kek: kek, kind: kind, vaultID: vaultID),
            created: Int64(now.timeIntervalSince1970))
        return (row, kek)
    }

    /// Seals a new slot's KEK into the row itself, for a `systemd-creds` slot: `row.id` must be
    /// the id the row gets, since it is bound into the credential's name. Nothing to do for the
    /// other kinds.
    func seal(_ kek: SecureBytes, into row: inout SlotRow, vaultID: [UInt8]) throws(CofferError) {
        guard case .systemdCredential(let options) = source else { return }
        let credential = try SystemdCredsTool(timeout: options.timeout).encrypt(
            kek, name: SystemdCredentials.credentialName(vaultID: vaultID, slot: row.id), options: options)
        row.sealedKEK = SealedKEK(credential: credential, tpm2Device: options.tpm2Device)
    }

    /// Keeps a new slot's KEK where this credential finds it again: in the Secret Service for
    /// a Secret Service slot; nothing to do for the others, whose KEK the credential itself
    /// gives or the row holds sealed.
    func keep(_ kek: SecureBytes, forSlot slotID: Int64, vaultID: [UInt8]) throws(CofferError) {
        guard case .secretService(let keys) = source else { return }
        try keys.store(kek, vaultID: VaultFormat.hexIdentifier(vaultID), slot: slotID)
    }

    static func wrap(_ vaultKey: SecureBytes, kek: SecureBytes, kind: KeySlotKind, vaultID: [UInt8]) -> [UInt8] {
        AEAD.seal(vaultKey, key: kek, associatedData: VaultFormat.slotAssociatedData(vaultID: vaultID, kind: kind))
    }

    /// The KEK from a passphrase (Argon2id with the slot's salt and cost) or a key's own bytes.
    private static func derive(_ kind: KeySlotKind, _ secret: SecureBytes, salt: [UInt8]?, cost: PassphraseCost?) throws(CofferError) -> SecureBytes {
        guard kind == .passphrase else { return secret }
        guard let salt, let cost else { throw .corruptVault(reason: "passphrase slot without KDF parameters") }
        guard let key = Argon2id.deriveKey(from: secret, salt: salt, cost: cost) else {
            throw .storageUnavailable(reason: "not enough memory for Argon2id (\(cost))")
        }
        return key
    }
}

extension [SlotRow] {
    /// The cost of every passphrase slot.
    var passphraseCosts: [PassphraseCost] {
        compactMap { $0.knownKind == .passphrase ? $0.cost : nil }
    }

    /// The cost a new passphrase slot gets when none is asked for: the highest (most work)
    /// of the existing passphrase slots, so adding or changing a passphrase never weakens the
    /// vault; `fallback` when there is none.
    func strongestPassphraseCost(or fallback: PassphraseCost) -> PassphraseCost {
        passphraseCosts.max { ($0.work, $0.memoryBytes) < ($1.work, $1.memoryBytes) } ?? fallback
    }
}
