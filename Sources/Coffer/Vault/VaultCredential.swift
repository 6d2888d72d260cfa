import Foundation

/// Something that opens a vault key slot: a passphrase, a key file, a raw key, the Secret
/// Service, `systemd-creds`, or a service credential from systemd.
///
/// Passphrases and keys are held in ``SecureBytes`` from the moment the credential is made.
/// Its `description` never shows them.
public struct VaultCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Source: Sendable {
        /// The passphrase in Unicode NFC, UTF-8.
        case passphrase(SecureBytes)
        case keyFile(URL)
        case key(SecureBytes)
        case secretService(SecretService.Configuration)
        case systemdCredential(SystemdCredentials.Options)
        case serviceCredential(name: String)
    }

    let source: Source

    private init(_ source: Source) {
        self.source = source
    }

    /// A passphrase, stretched with Argon2id. It is normalised to Unicode NFC first.
    public static func passphrase(_ passphrase: String) -> VaultCredential {
        VaultCredential(.passphrase(SecureBytes(copying: Normalization.nfc(passphrase).utf8)))
    }

    /// A passphrase given as UTF-8 bytes, for example as read from a file descriptor or a
    /// terminal, so that it never becomes a `String` the app cannot wipe.
    ///
    /// Bytes that are not valid UTF-8 are refused with ``CofferError/invalidArgument(reason:)``:
    /// two different byte strings never open the same slot. A passphrase with non-ASCII
    /// characters is normalised to NFC through one short-lived `String`, since Unicode
    /// normalisation needs one; an ASCII passphrase is used as it is.
    public static func passphrase(utf8 bytes: SecureBytes) throws(CofferError) -> VaultCredential {
        guard bytes.isValidUTF8 else { throw .invalidArgument(reason: "the passphrase is not valid UTF-8") }
        guard !bytes.isASCII else { return VaultCredential(.passphrase(bytes)) }
        let normalized = bytes.withUnsafeBytes { raw in
            Normalization.nfc(String(decoding: raw, as: UTF8.self))
        }
        return VaultCredential(.passphrase(SecureBytes(copying: normalized.utf8)))
    }

    /// A key file: exactly 32 bytes, mode 0600. Create one with ``KeyFile/generate(at:)``.
    public static func keyFile(_ url: URL) -> VaultCredential {
        VaultCredential(.keyFile(url))
    }

    /// A raw 32-byte key that the app supplies, for example from systemd-creds or a TPM.
    public static func key(_ key: SecureBytes) -> VaultCredential {
        VaultCredential(.key(key))
    }

    /// The random key that a Secret Service slot keeps in the Secret Service: the vault opens
    /// with no prompt while the user's keyring is unlocked. Add such a slot with
    /// ``Vault/addKeySlot(_:cost:)``; a vault cannot be created with one alone. When the service
    /// is absent, locked or slow, this throws its typed error; falling back to another credential
    /// is the caller's explicit choice (``Vault/unlock(withFirstOf:)``).
    public static func secretService(_ configuration: SecretService.Configuration = SecretService.Configuration()) -> VaultCredential {
        VaultCredential(.secretService(configuration))
    }

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
        VaultCredential(.systemdCredential(options))
    }

    /// The key in a systemd service credential, `$CREDENTIALS_DIRECTORY/<name>`: what a unit
    /// receives with `LoadCredential=` or `LoadCredentialEncrypted=`. The file holds what a key
    /// file holds (32 bytes) and opens the vault's key-file slots; it is checked as key files
    /// are (a regular file of this user with no group or other access).
    ///
    /// Without `$CREDENTIALS_DIRECTORY`, or without the file, opening throws
    /// ``CofferError/machineKey(_:)`` with ``MachineKeyFailure/serviceCredentialMissing(name:)``.
    public static func serviceCredential(name: String = SystemdCredentials.defaultServiceCredentialName) -> VaultCredential {
        VaultCredential(.serviceCredential(name: name))
    }

    /// Whether this is a passphrase.
    public var isPassphrase: Bool {
        if case .passphrase = source { true } else { false }
    }

    public var description: String {
        switch source {
        case .passphrase: "passphrase(redacted)"
        case .keyFile(let url): "keyFile(\(url.path))"
        case .key: "key(redacted)"
        case .secretService: "secretService"
        case .systemdCredential: "systemdCredential"
        case .serviceCredential(let name): "serviceCredential(\(name))"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credential": description]) }
}
