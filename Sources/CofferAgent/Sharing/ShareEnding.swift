import Coffer

/// Why a share ended, as its `unshare` entry in the audit log says.
enum ShareEnding: Sendable {
    /// `coffer agent unshare`.
    case revoked
    /// Its time (`--for`) ran out.
    case expired
    /// The agent stopped.
    case stopped

    var decision: AuditEntry.Decision {
        switch self {
        case .revoked: .revoked
        case .expired: .expired
        case .stopped: .stopped
        }
    }
}
