/// `systemd-creds` slots: the KEK is 32 random bytes sealed by `systemd-creds encrypt` to this
/// machine's host key, TPM2 or both, kept in the row (docs/vault-format.md, 4.5; ``SealedKEK``).
enum SystemdCredsSlot: KeySlotKind {
    static let name = "systemd-creds"
    static var mayCreateVault: Bool { false }

    /// `opslimit` and `memlimit` NULL, and `kdf` and `salt` a ``SealedKEK``.
    static func check(_ parameters: SlotParameters, slot: Int64) throws(CofferError) {
        guard parameters.opslimit == nil, parameters.memlimit == nil, SealedKEK(parameters) != nil else {
            throw .corruptVault(reason: "key slot \(slot) (\(name)) has malformed credential columns")
        }
    }

    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String) {
        let binding = SealedKEK(parameters)?.binding
            ?? SystemdCredentials.Binding(keySource: .unknown, pcrs: [], tpm2Device: nil)
        return (.systemdCredential(binding), "systemd-creds, \(binding)")
    }
}

/// `systemd-creds`, which seals a random KEK per slot into the slot's row.
struct SystemdCredsCredential: CredentialSource, SlotOpener {
    let options: SystemdCredentials.Options

    var kind: any KeySlotKind.Type { SystemdCredsSlot.self }
    var description: String { "systemdCredential" }

    func opener() throws(CofferError) -> any SlotOpener {
        try options.validate()
        return self
    }

    /// `systemd-creds decrypt` of the slot's credential, on the TPM2 device of the options, else the slot's.
    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes? {
        guard let sealed = SealedKEK(row.parameters) else { throw .corruptVault(reason: "key slot \(row.id) has no credential") }
        return try SystemdCredsTool(timeout: options.timeout).decrypt(
            sealed.credential, name: SystemdCredentials.credentialName(vaultID: vaultID, slot: row.id),
            tpm2Device: options.tpm2Device ?? sealed.tpm2Device)
    }

    func newKeyEncryptionKey(cost: PassphraseCost) throws(CofferError) -> (kek: SecureBytes, parameters: SlotParameters) {
        (.random(count: AEAD.keyLength), .none)
    }

    /// `systemd-creds encrypt` of the KEK under a name bound to the vault and `row.id`.
    func seal(_ kek: SecureBytes, into row: inout SlotRow, vaultID: [UInt8]) throws(CofferError) {
        let credential = try SystemdCredsTool(timeout: options.timeout).encrypt(
            kek, name: SystemdCredentials.credentialName(vaultID: vaultID, slot: row.id), options: options)
        row.parameters = SealedKEK(credential: credential, tpm2Device: options.tpm2Device).parameters
    }
}

extension VaultCredential {
    /// A key sealed to this machine by `systemd-creds`: its host key, its TPM2, or both.
    ///
    /// Adding a slot with it (``Vault/addKeySlot(_:cost:)``, which needs an unlocked vault)
    /// draws a random key-encryption key and has `systemd-creds encrypt` seal it with the keys
    /// and PCRs of `options`, under the name `coffer-<vault id>-<slot id>`; the credential is
    /// stored in the slot. Opening runs `systemd-creds decrypt` with the same name, so a
    /// credential copied into another vault or slot is refused. The key goes to
    /// `systemd-creds` and back through pipes only. A vault cannot be created with such a slot
    /// alone, so losing the machine never loses the vault.
    ///
    /// Failures are ``CofferError/machineKey(_:)``: `systemd-creds` missing, another machine,
    /// TPM or PCR value, or a TPM that does not answer within `options.timeout` (10 s by
    /// default; `systemd-creds` is killed then). They are credential failures, so
    /// ``Vault/unlock(withFirstOf:)`` goes on to the next credential, such as a passphrase.
    public static func systemdCredential(_ options: SystemdCredentials.Options = SystemdCredentials.Options()) -> VaultCredential {
        VaultCredential(SystemdCredsCredential(options: options))
    }
}
