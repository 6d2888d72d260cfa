import Coffer
import CofferAuth
import CofferBase
import CofferCommandLine

/// Answers challenges at the terminal: shows the check's message and the attempts left, then
/// asks for the fields the check expects, never echoing a PIN or a password. An empty answer
/// cancels.
struct TerminalChallengePrompt: ChallengeAnswerSource {
    /// What a check's answer holds.
    private enum Field {
        case text(String), secret(String), yesNo(String)
    }

    private static func fields(of check: String) -> [(name: String, field: Field)] {
        switch check {
        case "PinCodeAttempts": [("pin", .secret("PIN: "))]
        case "UserLogin": [("username", .text("User name: ")), ("password", .secret("Password: ")), ("rememberMe", .yesNo("Remember me? [y/N] "))]
        default: [("username", .text("User name: ")), ("password", .secret("Password: "))]
        }
    }

    func answer(to challenge: JSONValue, from check: String) -> JSONValue? {
        let message = (challenge["errorMsg"] ?? challenge["text"] ?? challenge["message"])?.stringValue.map(Self.shown)
        let remaining = challenge["remainingAttempts"]?.intValue.map { " (\($0) attempt\($0 == 1 ? "" : "s") left)" } ?? ""
        Terminal.writeToTerminal("\(check): \(message ?? "an answer is needed")\(remaining)\n")
        var answer: [String: JSONValue] = [:]
        for (name, field) in Self.fields(of: check) {
            switch field {
            case .text(let prompt):
                guard let text = Terminal.readVisibleLine(prompt: prompt), !text.isEmpty else { return nil }
                answer[name] = .string(text)
            case .secret(let prompt):
                guard let text = Terminal.readHidden(prompt: prompt)?.utf8Text, !text.isEmpty else { return nil }
                answer[name] = .string(text)
            case .yesNo(let prompt):
                guard let text = Terminal.readVisibleLine(prompt: prompt) else { return nil }
                answer[name] = .bool(["y", "yes"].contains(text.lowercased()))
            }
        }
        return .object(answer)
    }

    func report(failure: JSONValue, from check: String) {
        Terminal.writeToTerminal("\(check): \(ChallengeText.reason(in: failure).map(TerminalText.escaped) ?? "failed")\n")
    }

    /// A server's message as the terminal shows it: on one line, with the Unicode
    /// bidirectional controls (which would reorder what the user reads) as visible escapes.
    static func shown(_ message: String) -> String {
        TerminalText.escaped(ChallengeText.oneLine(message))
    }
}
