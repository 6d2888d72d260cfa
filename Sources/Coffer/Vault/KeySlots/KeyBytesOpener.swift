/// A credential whose own 32 bytes are the key-encryption key: a key file, a raw key, a
/// service credential (docs/vault-format.md, 4.1).
struct KeyBytesOpener: SlotOpener {
    let kind: any KeySlotKind.Type
    let key: SecureBytes

    func keyEncryptionKey(for row: SlotRow, vaultID: [UInt8]) throws(CofferError) -> SecureBytes? { key }

    func newKeyEncryptionKey(cost: PassphraseCost) throws(CofferError) -> (kek: SecureBytes, parameters: SlotParameters) {
        (key, .none)
    }
}
