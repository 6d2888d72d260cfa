/// Secret Service slots, `secret-service`: the KEK is 32 random bytes kept in the Secret
/// Service, one item per slot (docs/vault-format.md, 4.4; ``SecretServiceKeyStore``).
enum SecretServiceSlot: KeySlotKind {
    static let name = "secret-service"
    static var mayCreateVault: Bool { false }

    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String) {
        (.secretService, "Secret Service")
    }

    /// Deletes the slot's key from the Secret Service when the service is available; when it
    /// is not, the key stays (see ``Vault/removeKeySlot(id:secretService:)``).
    static func forget(_ removed: SlotRow, vaultID: [UInt8], secretService: SecretService.Configuration) {
        _ = try? SecretServiceKeyStore(configuration: secretService).delete(vaultID: VaultFormat.hexIdentifier(vaultID), slot: removed.id)
    }
}

/// The Secret Service, which keeps a random KEK per slot.
struct SecretServiceCredential: CredentialSource, SlotOpener {
    let keys: SecretServiceKeyStore

    var kind: any KeySlotKind.Type { SecretServiceSlot.self }
    var description: String { "secretService" }

    /// The Secret Service's item for the slot; `nil` when it holds none.
    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes? {
        try keys.fetch(vaultID: VaultFormat.hexIdentifier(vaultID), slot: row.id)
    }

    func newKeyEncryptionKey(cost: PassphraseCost) throws(CofferError) -> (kek: SecureBytes, parameters: SlotParameters) {
        (.random(count: AEAD.keyLength), .none)
    }

    /// Stores the new slot's KEK in the Secret Service, named by the vault's id and the slot's number.
    func keep(_ kek: SecureBytes, forSlot slotID: Int64, vaultID: [UInt8]) throws(CofferError) {
        try keys.store(kek, vaultID: VaultFormat.hexIdentifier(vaultID), slot: slotID)
    }
}

extension VaultCredential {
    /// The random key that a Secret Service slot keeps in the Secret Service: the vault opens
    /// with no prompt while the user's keyring is unlocked. Add such a slot with
    /// ``Vault/addKeySlot(_:cost:)``; a vault cannot be created with one alone. When the service
    /// is absent, locked or slow, this throws its typed error; falling back to another credential
    /// is the caller's explicit choice (``Vault/unlock(withFirstOf:)``).
    public static func secretService(_ configuration: SecretService.Configuration = SecretService.Configuration()) -> VaultCredential {
        VaultCredential(SecretServiceCredential(keys: SecretServiceKeyStore(configuration: configuration)))
    }
}
