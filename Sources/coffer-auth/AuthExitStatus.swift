import CofferAuth
import CofferCommandLine

extension AuthError: CommandFailure {
    package var message: String { description }

    /// The documented exit status for this error (see `coffer --help`).
    package var exitStatus: ExitStatus {
        switch self {
        case .invalidCredentials, .notAuthenticated, .tokenExpired, .backendMismatch, .noHandler: .loginNeeded
        case .serverError, .malformedResponse, .oauthError, .refused: .badReply
        case .transport: .unavailable
        case .timeout, .challengeTimeout: .timedOut
        case .storage(let error): error.exitStatus
        case .cancelled: .cancelled
        case .invalidRequest: .usage
        case .logoutIncomplete: .logoutIncomplete
        case .challengeFailed, .tooManyChallengeRounds: .challengeFailed
        case .blocked: .blocked
        case .challengeCancelled: .challengeCancelled
        case .reauthenticationRequired: .refreshRefused
        case .accessDenied, .authorizationError, .deviceCodeExpired: .loginDenied
        case .untrustedResponse: .untrustedReply
        }
    }
}
