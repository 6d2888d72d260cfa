/// The unlocked vault key and the subkeys derived from it.
///
/// Held only while the vault is unlocked; dropping it zeroes every key (``SecureBytes``).
final class VaultKeys: Sendable {
    let vaultKey: SecureBytes
    let recordKey: SecureBytes
    let indexKey: SecureBytes
    /// Format version 2: the key of the attribute index's tokens.
    let attributeKey: SecureBytes
    /// A non-secret fingerprint stored in the vault, to notice a key rotated by another process.
    let keyCheck: [UInt8]

    init(vaultKey: SecureBytes) {
        self.vaultKey = vaultKey
        recordKey = KeyDerivation.subkey(VaultFormat.recordKeyID, context: VaultFormat.subkeyContext, from: vaultKey)
        indexKey = KeyDerivation.subkey(VaultFormat.indexKeyID, context: VaultFormat.subkeyContext, from: vaultKey)
        attributeKey = KeyDerivation.subkey(VaultFormat.attributeKeyID, context: VaultFormat.subkeyContext, from: vaultKey)
        let check = KeyDerivation.subkey(
            VaultFormat.keyCheckID, context: VaultFormat.subkeyContext, from: vaultKey, length: VaultFormat.keyCheckLength)
        keyCheck = check.withUnsafeBytes { Array($0) }
    }

    /// A fresh random vault key.
    static func generate() -> VaultKeys {
        VaultKeys(vaultKey: .random(count: 32))
    }

    /// The blind index that is the item's row key.
    func rowKey(for id: ItemID) -> [UInt8] {
        rowKey(forIndexInput: VaultFormat.blindIndexInput(id))
    }

    /// The row key of a blind-index input, such as a decoded record's.
    func rowKey(forIndexInput input: [UInt8]) -> [UInt8] {
        KeyedHash.hash(input, key: indexKey)
    }
}
