import Foundation

/// Something that opens a vault key slot.
///
/// Its `description` never shows the passphrase or key.
public enum VaultCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A passphrase, stretched with Argon2id. It is normalised to Unicode NFC first.
    case passphrase(String)
    /// A key file: exactly 32 bytes, mode 0600. Create one with ``KeyFile/generate(at:)``.
    case keyFile(URL)
    /// A raw 32-byte key that the app supplies, for example from systemd-creds or a TPM.
    case key(SecureBytes)
    /// The random key that a Secret Service slot keeps in the Secret Service: the vault opens
    /// with no prompt while the user's keyring is unlocked. Add such a slot with
    /// ``Vault/addKeySlot(_:)``; a vault cannot be created with one alone. When the service is
    /// absent, locked or slow, this throws its typed error; falling back to another credential
    /// is the caller's explicit choice (``Vault/unlock(withFirstOf:)``).
    case secretService(SecretService.Configuration = SecretService.Configuration())

    public var description: String {
        switch self {
        case .passphrase: "passphrase(redacted)"
        case .keyFile(let url): "keyFile(\(url.path))"
        case .key: "key(redacted)"
        case .secretService: "secretService"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credential": description]) }
}
