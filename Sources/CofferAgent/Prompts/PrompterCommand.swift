import Coffer
import CofferProcess

/// The command `--prompter` names: run by `/bin/sh -c`, it writes the passphrase on its
/// standard output, as `systemd-ask-password` does. Its first line is the passphrase; an exit
/// status other than 0, an empty line, or no answer within ``timeout`` means "dismissed". It is
/// told what to ask in `$COFFER_PROMPT`. It never gets a terminal: its standard input is
/// `/dev/null`.
///
/// It runs in a process group of its own, with descriptors 0, 1 and 2 only and the environment
/// ``environment(prompt:)`` lists. When it ends, is dismissed or runs out of time, its whole
/// group is killed: nothing it started outlives the prompt.
package struct PrompterCommand: Sendable {
    package let command: String
    package let timeout: Duration

    package init(command: String, timeout: Duration = .seconds(120)) {
        self.command = command
        self.timeout = timeout
    }

    /// The longest answer read; a longer one is refused.
    static let maxAnswerBytes = 4096

    /// The variables of the agent's environment a prompter gets (with `PATH` fixed to
    /// ``ChildEnvironment/systemPath`` and `COFFER_PROMPT` added): what a graphical or
    /// terminal-less program needs to reach the person's session, and nothing else.
    static let passedVariables: Set<String> = [
        "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS",
        "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
    ]

    /// A run that ``Prompt`` can end early (`Dismiss`, or its client leaving the bus): it kills
    /// the prompter's process group, and no later attempt starts.
    typealias Run = ChildCancellation

    /// The prompter's environment: the allow-listed variables, the locale's `LC_*`, and the
    /// question in `COFFER_PROMPT`.
    static func environment(prompt: String) -> [String: String] {
        var environment = ChildEnvironment.passing(passedVariables, prefixes: ["LC_"])
        environment["COFFER_PROMPT"] = prompt
        return environment
    }

    /// Runs the command and returns the passphrase, or `nil` when it was dismissed, failed or
    /// took too long. Blocks: call it off the main loop.
    func ask(_ prompt: String, run: Run) -> SecureBytes? {
        let child = ChildCommand(executable: "/bin/sh", arguments: ["-c", command], environment: Self.environment(prompt: prompt))
        var answerLength = 0
        let answer = SecureBytes(count: Self.maxAnswerBytes) { buffer in
            guard let outcome = try? child.run(
                output: buffer, errors: .inherited, until: ContinuousClock.now + timeout, cancellation: run),
                outcome.succeeded, !outcome.outputOverflowed
            else { return }
            answerLength = buffer.prefix(outcome.outputCount).firstIndex(of: UInt8(ascii: "\n")) ?? outcome.outputCount
        }
        guard answerLength > 0, !run.isCancelled else { return nil }
        return answer.withUnsafeBytes { SecureBytes(copying: $0.prefix(answerLength)) }
    }
}
