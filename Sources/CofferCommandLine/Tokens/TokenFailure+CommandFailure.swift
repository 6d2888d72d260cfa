import Coffer

/// The agent's token failures, with the exit statuses `coffer-auth` gives the same failures
/// (`AgentTokenBroker.error(for:)`, then `AuthError`'s statuses).
extension TokenFailure: CommandFailure {
    package var message: String { description }

    package var exitStatus: ExitStatus {
        switch self {
        case .notLoggedIn: .loginNeeded
        case .loginRequired: .refreshRefused
        case .providerUnavailable: .unavailable
        case .providerError: .badReply
        }
    }
}
