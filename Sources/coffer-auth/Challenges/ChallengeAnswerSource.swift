import CofferAuth
import CofferCommandLine

/// Where `coffer request` gets the answers to a security check's or realm's challenges.
protocol ChallengeAnswerSource: Sendable {
    /// The answer to `challenge` from `check`, or `nil` to cancel. It may block (a terminal prompt).
    func answer(to challenge: JSONValue, from check: String) -> JSONValue?
    /// The check failed, for example blocked: tell the user, if there is one.
    func report(failure: JSONValue, from check: String)
}

/// No answers: every challenge is cancelled (a script that gave no `--answers-json-fd` and
/// has no terminal).
struct NoChallengeAnswers: ChallengeAnswerSource {
    func answer(to challenge: JSONValue, from check: String) -> JSONValue? { nil }
    func report(failure: JSONValue, from check: String) {}
}
