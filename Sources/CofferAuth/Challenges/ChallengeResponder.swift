/// What Coffer needs of a registered handler, whichever kind it is: a MobileFirst
/// ``SecurityCheckChallengeHandler`` or a Mobile Client Access ``AuthenticationDelegate``.
protocol ChallengeResponder: Sendable {
    /// The security check or realm it answers for.
    var name: String { get }
    /// Its challenge state.
    var prompt: ChallengePrompt { get }
    /// Shows `challenge` to the app and waits for the outcome, at most `timeout`.
    func answer(_ challenge: JSONValue, timeout: Duration) async -> ChallengeAnswer
    /// Tells the app the check succeeded (queued behind its other callbacks).
    func succeeded(_ success: JSONValue)
    /// Tells the app the check failed (queued behind its other callbacks).
    func failed(_ failure: JSONValue)
}
