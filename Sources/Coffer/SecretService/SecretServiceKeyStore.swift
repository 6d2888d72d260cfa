/// Key-encryption keys of vault key slots, kept in the Secret Service: one item per slot.
///
/// Each item holds the slot's random 32-byte KEK as its secret, with the attributes
/// `xdg:schema = coffer.VaultKey`, `coffer:vault = <the vault's id, 32 hex digits>`,
/// `coffer:slot = <the slot number, decimal>` and `application`, and the label
/// "Coffer vault key (vault <id>, slot <n>)". They have no `service` or `username`, so a
/// ``SecretServiceStore`` never lists them.
struct SecretServiceKeyStore {
    static let schema = "coffer.VaultKey"
    static let vaultKey = "coffer:vault"
    static let slotKey = "coffer:slot"

    let configuration: SecretService.Configuration

    /// The attributes that find the KEK of slot `slot` of vault `vaultID`.
    static func identity(vaultID: String, slot: Int64) -> [String: String] {
        [SecretServiceItemFormat.Key.schema: schema, vaultKey: vaultID, slotKey: String(slot)]
    }

    /// Stores the KEK, replacing any earlier one for the same vault and slot.
    func store(_ kek: SecureBytes, vaultID: String, slot: Int64) throws(CofferError) {
        let identity = Self.identity(vaultID: vaultID, slot: slot)
        var attributes = identity
        attributes[SecretServiceItemFormat.Key.application] = configuration.application
        let label = "Coffer vault key (vault \(vaultID), slot \(slot))"
        try SecretServiceConnection.withDefaultCollection(timeout: configuration.timeout) { session throws(CofferError) in
            let existing = try session.search(identity).sorted(by: SecretServiceItem.newestFirst)
            try kek.withUnsafeBytes { bytes throws(CofferError) in
                try session.upsert(existing, attributes: attributes, label: label, secret: bytes)
            }
        }
    }

    /// The KEK, or `nil` when the Secret Service holds none for this vault and slot.
    func fetch(vaultID: String, slot: Int64) throws(CofferError) -> SecureBytes? {
        try SecretServiceConnection.withDefaultCollection(timeout: configuration.timeout) { session throws(CofferError) -> SecureBytes? in
            guard let newest = try session.search(Self.identity(vaultID: vaultID, slot: slot))
                .sorted(by: SecretServiceItem.newestFirst).first
            else { return nil }
            try session.loadSecrets([newest])
            guard let kek = newest.secretBytes() else {
                throw .secretServiceUnavailable(reason: "the daemon returned no secret for an unlocked item")
            }
            return kek
        }
    }

    /// Deletes the KEK. Returns whether there was one.
    @discardableResult
    func delete(vaultID: String, slot: Int64) throws(CofferError) -> Bool {
        try SecretServiceConnection.withDefaultCollection(timeout: configuration.timeout) { session throws(CofferError) -> Bool in
            try session.deleteAll(Self.identity(vaultID: vaultID, slot: slot))
        }
    }
}
