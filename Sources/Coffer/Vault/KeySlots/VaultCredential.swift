import FoundationEssentials

/// Something that opens a vault key slot: a passphrase, a key file, a raw key, the Secret
/// Service, `systemd-creds`, or a service credential from systemd.
///
/// Passphrases and keys are held in ``SecureBytes`` from the moment the credential is made.
/// Its `description` never shows them.
public struct VaultCredential: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let source: any CredentialSource

    init(_ source: any CredentialSource) {
        self.source = source
    }

    /// Whether this is a passphrase.
    public var isPassphrase: Bool { source is PassphraseCredential }

    public var description: String { source.description }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credential": description]) }
}

/// What a ``VaultCredential`` holds: one type per kind of credential, in its slot kind's file.
protocol CredentialSource: Sendable {
    /// The credential as its `description` shows it, never its secret.
    var description: String { get }

    /// The credential made ready to open and make slots: a key file is read here, and options
    /// checked. Reading is the only I/O.
    func opener() throws(CofferError) -> any SlotOpener
}

extension CredentialSource where Self: SlotOpener {
    /// A credential that needs no reading or checking is its own opener.
    func opener() throws(CofferError) -> any SlotOpener { self }
}
