import FoundationEssentials

/// Key-file slots, `keyfile`: the KEK is a key file's 32 bytes (docs/vault-format.md, 4.1). A
/// service credential from systemd (``ServiceCredential``) opens them too.
enum KeyFileSlot: KeySlotKind {
    static let name = "keyfile"

    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String) {
        (.keyFile, "key file")
    }
}

/// A key file, read when the credential is used (``KeyFile/read(at:missing:)``).
struct KeyFileCredential: CredentialSource {
    let url: URL

    var description: String { "keyFile(\(url.path))" }

    func opener() throws(CofferError) -> any SlotOpener {
        KeyBytesOpener(kind: KeyFileSlot.self, key: try KeyFile.read(at: url))
    }
}

extension VaultCredential {
    /// A key file: exactly 32 bytes, mode 0600. Create one with ``KeyFile/generate(at:)``.
    public static func keyFile(_ url: URL) -> VaultCredential {
        VaultCredential(KeyFileCredential(url: url))
    }
}
