import FoundationEssentials

/// A key handed to a service by systemd in `$CREDENTIALS_DIRECTORY` (`LoadCredential=`,
/// `LoadCredentialEncrypted=`): a key file's 32 bytes under a credential name. It opens
/// key-file slots (``KeyFileSlot``).
struct ServiceCredential: CredentialSource {
    let name: String

    var description: String { "serviceCredential(\(name))" }

    func opener() throws(CofferError) -> any SlotOpener {
        KeyBytesOpener(kind: KeyFileSlot.self, key: try Self.read(name: name))
    }

    /// Reads the credential `name`, checked as a key file is.
    static func read(name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> SecureBytes {
        guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), name != ".", name != ".." else {
            throw .invalidArgument(reason: "a credential name is 1 to 255 bytes without a slash")
        }
        guard let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty else {
            throw .machineKey(.serviceCredentialMissing(name: name))
        }
        return try KeyFile.read(at: URL(fileURLWithPath: folder).appendingPathComponent(name), missing: .machineKey(.serviceCredentialMissing(name: name)))
    }
}

extension VaultCredential {
    /// The key in a systemd service credential, `$CREDENTIALS_DIRECTORY/<name>`: what a unit
    /// receives with `LoadCredential=` or `LoadCredentialEncrypted=`. The file holds what a key
    /// file holds (32 bytes) and opens the vault's key-file slots; it is checked as key files
    /// are (a regular file of this user with no group or other access).
    ///
    /// Without `$CREDENTIALS_DIRECTORY`, or without the file, opening throws
    /// ``CofferError/machineKey(_:)`` with ``MachineKeyFailure/serviceCredentialMissing(name:)``.
    public static func serviceCredential(name: String = SystemdCredentials.defaultServiceCredentialName) -> VaultCredential {
        VaultCredential(ServiceCredential(name: name))
    }
}
