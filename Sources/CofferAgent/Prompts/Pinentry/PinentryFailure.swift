import CofferBase
import CofferProcess

/// Why the pinentry gave no answer. The description is one line, for stderr: it never holds
/// what the person typed.
package enum PinentryFailure: Error, Equatable, CustomStringConvertible {
    /// The program could not be started (missing, not executable, not an absolute path).
    case cannotRun(ChildSpawnFailure)
    /// It gave no answer within the time limit, and was killed.
    case timedOut
    /// It ended, or stopped reading, before it answered; with its last line on stderr.
    case ended(ChildTermination, stderr: String)
    /// It broke the Assuan protocol; with its last line on stderr.
    case protocolError(AssuanProtocolError, stderr: String)
    /// It answered a command with an error that is not the person's "no".
    case refused(command: String, AssuanError)
    /// A passphrase with a line break, which a prompter's answer (one line) cannot carry.
    case passphraseWithLineBreak

    package var description: String {
        switch self {
        case .cannotRun(let failure): "\(failure)"
        case .timedOut: "no answer in time; the pinentry was ended"
        case .ended(let termination, let stderr): "the pinentry ended (\(termination)) before it answered" + Self.detail(stderr)
        case .protocolError(let error, let stderr): "the pinentry sent \(error)" + Self.detail(stderr)
        case .refused(let command, let error): "the pinentry answered \(command) with \(TerminalText.escaped(error.description))"
        case .passphraseWithLineBreak: "the passphrase holds a line break, which the prompter's answer cannot carry"
        }
    }

    /// `: LINE`, the last non-empty line of the program's standard error, escaped; or nothing.
    private static func detail(_ stderr: String) -> String {
        guard let line = stderr.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        return ": " + TerminalText.escaped(String(line.prefix(300)))
    }
}
