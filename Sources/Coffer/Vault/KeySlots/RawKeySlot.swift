/// Raw-key slots, `key`: the KEK is a 32-byte key the app supplies (docs/vault-format.md, 4.1).
enum RawKeySlot: KeySlotKind {
    static let name = "key"

    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String) {
        (.key, "key")
    }
}

/// A raw key; one that is not 32 bytes is refused when it is used.
struct RawKeyCredential: CredentialSource {
    let key: SecureBytes

    var description: String { "key(redacted)" }

    func opener() throws(CofferError) -> any SlotOpener {
        guard key.count == 32 else { throw .invalidArgument(reason: "a vault key is 32 bytes") }
        return KeyBytesOpener(kind: RawKeySlot.self, key: key)
    }
}

extension VaultCredential {
    /// A raw 32-byte key that the app supplies, for example from systemd-creds or a TPM.
    public static func key(_ key: SecureBytes) -> VaultCredential {
        VaultCredential(RawKeyCredential(key: key))
    }
}
