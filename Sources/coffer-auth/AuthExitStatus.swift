import CofferAuth
import CofferCommandLine

extension AuthError: CommandFailure {
    package var message: String { description }

    /// The documented exit status for this error (see `coffer --help`).
    package var exitStatus: Int32 {
        switch self {
        case .invalidCredentials, .notAuthenticated, .tokenExpired, .backendMismatch: 4
        case .serverError, .malformedResponse, .oauthError, .refused: 76
        case .transport: 69
        case .timeout: 75
        case .storage(let error): error.exitStatus
        case .cancelled: 130
        case .invalidRequest: 64
        case .logoutIncomplete: 6
        case .noHandler: 4
        case .challengeFailed, .tooManyChallengeRounds: 7
        case .blocked: 8
        case .challengeCancelled: 9
        case .challengeTimeout: 75
        case .reauthenticationRequired: 10
        case .accessDenied, .authorizationError, .deviceCodeExpired: 11
        case .untrustedResponse: 12
        }
    }
}
