import Coffer
import CofferBase
import CofferProcess

/// The command `--prompter` names, and the one way the agent asks the person something: a
/// vault's passphrase, or whether a program may read an item (docs/prompts.md).
///
/// It runs by `/bin/sh -c` with its standard input `/dev/null`: it never gets the agent's
/// terminal. It is told what to ask in its environment, never in its arguments
/// (``PromptVariable``): `COFFER_PROMPT_KIND`, the text to show in `COFFER_PROMPT`, the values as
/// they are for an access question, and `COFFER_PROMPT_TIMEOUT`. It answers on its standard
/// output: the passphrase as its first line, as `systemd-ask-password` does; for access one
/// word, `once`, `always` or `deny`. An exit status other than 0, an empty or other answer, or
/// no answer within ``timeout`` is "dismissed" (no passphrase) or ``AccessDenial`` (no access).
///
/// It runs in a process group of its own, with descriptors 0, 1 and 2 only and the environment
/// ``environment(_:)`` lists. When it ends, is cancelled or runs out of time, its whole group is
/// killed: nothing it started outlives the prompt.
package struct PrompterCommand: Sendable {
    package let command: String
    package let timeout: Duration

    package init(command: String, timeout: Duration = .seconds(120)) {
        self.command = command
        self.timeout = timeout
    }

    /// The longest passphrase answer read; a longer one is refused.
    static let maxAnswerBytes = 4096
    /// The longest access answer read: a word and a line break, with room to spare.
    static let maxWordBytes = 64

    /// The variables of the agent's environment a prompter gets (with `PATH` fixed to
    /// ``ChildEnvironment/systemPath`` and the prompt's own added): what a graphical or
    /// terminal program needs to reach the person's session (`GPG_TTY` and `TERM` for a
    /// terminal pinentry), and nothing else.
    package static let passedVariables: Set<String> = [
        "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS",
        "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "GPG_TTY", "TERM",
    ]
    /// The prefixes of the locale's variables, which a prompter gets too.
    package static let passedPrefixes = ["LC_"]

    /// A run that the caller can end early (the Secret Service's `Dismiss`, or its client
    /// leaving the bus): it kills the prompter's process group, and no later attempt starts.
    package typealias Run = ChildCancellation

    /// The prompter's environment: the allow-listed variables, the locale's `LC_*`, and the
    /// prompt's (`variables`, and `COFFER_PROMPT_TIMEOUT`), a NUL in a value made U+FFFD.
    func environment(_ variables: [String: String]) -> [String: String] {
        var environment = ChildEnvironment.passing(Self.passedVariables, prefixes: Self.passedPrefixes)
        for (name, value) in variables { environment[name] = PromptVariable.value(value) }
        environment[PromptVariable.timeout] = String(max(timeout.clampedMilliseconds / 1000, 1))
        return environment
    }

    /// Asks for a passphrase, showing `text`. Returns the first line of the answer, or `nil`
    /// when the prompt was dismissed, failed or took too long. Blocks: call it off the main loop.
    package func ask(passphrase text: String, run: Run? = nil) -> SecureBytes? {
        var answerLength = 0
        let answer = SecureBytes(count: Self.maxAnswerBytes) { buffer in
            let variables = [PromptVariable.kind: PromptKind.passphrase.rawValue, PromptVariable.text: text]
            guard case .success(let outcome) = self.run(variables, output: buffer, cancellation: run), outcome.succeeded,
                  !outcome.outputOverflowed
            else { return }
            answerLength = buffer.prefix(outcome.outputCount).firstIndex(of: UInt8(ascii: "\n")) ?? outcome.outputCount
        }
        guard answerLength > 0, run?.isCancelled != true else { return nil }
        return answer.withUnsafeBytes { SecureBytes(copying: $0.prefix(answerLength)) }
    }

    /// Asks whether a program may read an item. Returns the prompter's word, or
    /// ``AccessAnswer/deny(_:)`` with the reason there is none. Blocks: call it off the main loop.
    package func ask(access question: AccessQuestion, run: Run? = nil) -> AccessAnswer {
        var output = [UInt8](repeating: 0, count: Self.maxWordBytes)
        let result = output.withUnsafeMutableBytes { self.run(question.variables, output: $0, cancellation: run) }
        switch result {
        case .failure(.timedOut): return .deny(.timedOut)
        case .failure(.cancelled): return .deny(.cancelled)
        case .failure(.spawn): return .deny(.failed)
        case .success(let outcome):
            guard outcome.succeeded else { return .deny(.failed) }
            guard !outcome.outputOverflowed else { return .deny(.badAnswer) }
            return AccessAnswer(output: output.prefix(outcome.outputCount))
        }
    }

    private func run(
        _ variables: [String: String], output: UnsafeMutableRawBufferPointer, cancellation: Run?
    ) -> Result<ChildRunOutcome, ChildRunFailure> {
        let child = ChildCommand(executable: "/bin/sh", arguments: ["-c", command], environment: environment(variables))
        return Result { () throws(ChildRunFailure) in
            try child.run(output: output, errors: .inherited, until: ContinuousClock.now + timeout, cancellation: cancellation)
        }
    }
}
