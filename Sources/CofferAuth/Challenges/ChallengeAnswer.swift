/// How one presented challenge ended, as the app (or the clock) decided.
enum ChallengeAnswer: Sendable {
    /// ``SecurityCheckChallengeHandler/submitChallengeAnswer(_:)`` or
    /// ``AuthenticationContext/submitAuthenticationChallengeAnswer(_:)``.
    case answer(JSONValue)
    /// ``SecurityCheckChallengeHandler/cancel()``.
    case cancelled
    /// ``AuthenticationContext/submitAuthenticationFailure(_:)``, with its user info.
    case failed(JSONValue)
    /// No answer within the challenge timeout.
    case timedOut
    /// Coffer stopped waiting: every request that needed the answer was cancelled.
    case abandoned
}

extension ChallengeAnswer: CustomStringConvertible {
    /// Never shows an answer: answers hold PINs and passwords.
    var description: String {
        switch self {
        case .answer: "answer(redacted)"
        case .cancelled: "cancelled"
        case .failed: "failed"
        case .timedOut: "timedOut"
        case .abandoned: "abandoned"
        }
    }
}
