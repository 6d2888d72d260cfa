import Coffer

extension CofferError: CommandFailure {
    package var message: String { description }

    /// The documented exit status for this error.
    package var exitStatus: ExitStatus {
        switch self {
        case .itemNotFound: .notFound
        case .wrongPassphrase, .wrongKey, .locked: .locked
        case .integrityFailure, .corruptVault, .unsupportedFormatVersion: .integrityFailure
        case .invalidArgument: .usage
        case .secretTooLarge, .notUTF8: .dataError
        case .vaultNotFound: .noVault
        case .storageUnavailable, .secretServiceUnavailable, .agentUnavailable: .unavailable
        case .vaultExists: .alreadyExists
        case .insecurePermissions: .insecurePermissions
        case .timeout: .timedOut
        case .accessDenied: .accessDenied
        case .machineKey(let failure):
            switch failure {
            case .notThisMachine, .boundElsewhere, .serviceCredentialMissing: .locked
            case .systemdCredsMissing, .tpmUnreachable, .failed: .unavailable
            case .timedOut: .timedOut
            }
        }
    }
}
