import Coffer

/// An error the CLI reports as one line on stderr, with its documented exit status.
package protocol CommandFailure: Error {
    /// The line after `coffer: `; never holds a secret.
    var message: String { get }
    var exitStatus: Int32 { get }
}

extension CofferError: CommandFailure {
    package var message: String { description }

    /// The documented exit status for this error.
    package var exitStatus: Int32 {
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
        case .machineKey(let failure):
            switch failure {
            case .notThisMachine, .boundElsewhere, .serviceCredentialMissing: 2
            case .systemdCredsMissing, .tpmUnreachable, .failed: 69
            case .timedOut: 75
            }
        }
    }
}

/// A failure of the command-line tool itself, with its exit status.
package struct CLIError: CommandFailure {
    package let message: String
    package let exitStatus: Int32

    package init(message: String, exitStatus: Int32) {
        self.message = message
        self.exitStatus = exitStatus
    }

    package static func usage(_ message: String) -> CLIError { CLIError(message: message, exitStatus: 64) }
    /// No credential could be had: the vault stays locked.
    package static func noCredential(_ message: String) -> CLIError { CLIError(message: message, exitStatus: 2) }
}
