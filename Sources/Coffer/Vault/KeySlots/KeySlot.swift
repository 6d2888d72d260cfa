import FoundationEssentials

/// A key slot: one wrapping of the vault key, opened by one credential.
public struct KeySlot: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// What opens a slot.
    public enum Kind: Sendable, Hashable {
        /// A passphrase stretched with Argon2id at this cost.
        case passphrase(PassphraseCost)
        /// A key file.
        case keyFile
        /// A raw key supplied by the app.
        case key
        /// A random key kept in the Secret Service.
        case secretService
        /// A random key sealed by `systemd-creds` to this machine's host key, TPM2 or both.
        case systemdCredential(SystemdCredentials.Binding)
        /// A kind this version of Coffer does not know; it is kept and ignored.
        case other(String)
    }

    /// The slot number, unique within the vault.
    public let id: Int
    /// What opens the slot.
    public let kind: Kind
    /// When the slot was added.
    public let created: Date
    /// The slot's `kind` column: `passphrase`, `keyfile`, `key`, `secret-service`,
    /// `systemd-creds`, or a kind this version does not know (docs/vault-format.md, 4.1).
    package let kindName: String
    /// What ``description`` says after the slot number, as the slot's kind words it.
    let summary: String

    /// Whether `systemd-creds` opens the slot.
    public var isSystemdCredential: Bool {
        if case .systemdCredential = kind { true } else { false }
    }

    public var description: String { "slot \(id): \(summary)" }
}
