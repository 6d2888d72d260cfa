import Coffer

extension CofferError {
    /// The documented exit status for this error.
    var exitStatus: Int32 {
        switch self {
        case .itemNotFound: 1
        case .wrongPassphrase, .wrongKey, .locked: 2
        case .integrityFailure, .corruptVault, .unsupportedFormatVersion: 3
        case .invalidArgument: 64
        case .secretTooLarge, .notUTF8: 65
        case .vaultNotFound: 66
        case .storageUnavailable, .secretServiceUnavailable: 69
        case .vaultExists: 73
        case .insecurePermissions: 77
        case .timeout: 75
        }
    }
}

/// A failure of the command-line tool itself, with its exit status.
struct CLIError: Error {
    let message: String
    let exitStatus: Int32

    static func usage(_ message: String) -> CLIError { CLIError(message: message, exitStatus: 64) }
    /// No credential could be had: the vault stays locked.
    static func noCredential(_ message: String) -> CLIError { CLIError(message: message, exitStatus: 2) }
}
