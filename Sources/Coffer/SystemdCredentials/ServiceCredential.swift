import Foundation

/// A key handed to a service by systemd in `$CREDENTIALS_DIRECTORY` (`LoadCredential=`,
/// `LoadCredentialEncrypted=`): a key file's 32 bytes under a credential name.
enum ServiceCredential {
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
