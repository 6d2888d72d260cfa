import Foundation

/// Scripted challenge answers as JSON: an object mapping a security check or realm to the
/// list of answers to give it, in order (the CLI's `--answers-json-fd`).
package enum AnswerScript {
    /// Why a script was refused.
    package struct Invalid: Error, Sendable {
        /// One line, naming what is wrong but never quoting the script: it holds PINs and passwords.
        package let reason: String
    }

    /// The answers by check or realm. Throws ``Invalid`` unless `data` is a JSON object whose
    /// members are valid check names (``ChallengeText/isValidName(_:)``) holding lists.
    package static func parse(_ data: Data) throws(Invalid) -> [String: [JSONValue]] {
        guard let object = JSONValue(parsing: data)?.objectValue else {
            throw Invalid(reason: "not a JSON object")
        }
        var answers: [String: [JSONValue]] = [:]
        for (check, list) in object {
            guard ChallengeText.isValidName(check), let list = list.arrayValue else {
                throw Invalid(reason: "each member must name a security check or realm and hold a list of answers")
            }
            answers[check] = list
        }
        return answers
    }
}
