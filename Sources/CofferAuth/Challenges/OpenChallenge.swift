/// A security check whose challenge is being answered by one authorization flow (its owner).
/// Other flows that meet the same check park here instead of prompting the user again, and
/// every one of them is resumed with the outcome.
struct OpenChallenge {
    /// How the check's challenge ended, for the flows parked on it.
    enum Outcome: Sendable {
        /// The check succeeded: send the next round without an answer for it.
        case succeeded
        /// The check failed (or was cancelled, or timed out): fail with this error.
        case failed(AuthError)
        /// The owner stopped without an outcome (its callers were cancelled, or another check
        /// failed): send the next round, and answer the check yourself if it challenges again.
        case abandoned
    }

    /// The flow answering the challenge.
    let owner: UInt64
    /// The handler it is shown to.
    let responder: any ChallengeResponder
    /// The parked flows.
    var waiters: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
}
