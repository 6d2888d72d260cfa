import CofferBase
import Coffer
import CofferAuth
import CofferCommandLine
import Foundation

/// The answers of `--answers-json-fd N`: a JSON object mapping a security check or realm to a
/// list of answers, used in order; when a list runs out, the challenge is cancelled.
final class ScriptedChallengeAnswers: ChallengeAnswerSource {
    private let remaining: Guarded<[String: [JSONValue]]>

    /// The checks and realms the script answers for.
    let checks: Set<String>

    init(_ answers: [String: [JSONValue]]) {
        remaining = Guarded(answers)
        checks = Set(answers.keys)
    }

    /// Reads and checks the JSON from file descriptor `fd` (at most 1 MiB).
    static func read(fd: Int32) throws -> ScriptedChallengeAnswers {
        let data = try DescriptorInput.bytes(fd).withUnsafeBytes { Data($0) }
        let answers: [String: [JSONValue]]
        do throws(AnswerScript.Invalid) {
            answers = try AnswerScript.parse(data)
        } catch {
            throw CLIError.usage("--answers-json-fd: \(error.reason)")
        }
        return ScriptedChallengeAnswers(answers)
    }

    func answer(to challenge: JSONValue, from check: String) -> JSONValue? {
        remaining.withLock { remaining in
            guard var list = remaining[check], !list.isEmpty else { return nil }
            defer { remaining[check] = list }
            return list.removeFirst()
        }
    }

    func report(failure: JSONValue, from check: String) {}
}
