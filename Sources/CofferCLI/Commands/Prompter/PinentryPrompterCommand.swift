import ArgumentParser
import CofferAgent
import CofferCommandLine
import CofferProcess
import FoundationEssentials
import Glibc

/// `coffer prompter pinentry`: the agent's prompter through GnuPG's pinentry
/// (``PinentryPrompter``), so that `--prompter "coffer prompter pinentry"` asks as gpg-agent does.
struct PinentryPrompterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinentry",
        abstract: "Ask the agent's question through GnuPG's pinentry: `--prompter \"coffer prompter pinentry\"`.",
        discussion: """
            Reads the question from $COFFER_PROMPT_KIND and the variables the agent sets (docs/prompts.md) \
            and answers on stdout: a passphrase as one line; for access `once`, `always` or `deny`. Access \
            is two questions (Allow / Deny, then Always allow / Only this time), since pinentry-gnome3 \
            shows no third button. A dismissed passphrase prompt prints nothing and exits 130. A pinentry \
            that cannot run, fails or breaks the protocol is one line on stderr and no answer, which the \
            agent takes as dismissed or denied.
            """)

    @Option(help: ArgumentHelp("The pinentry program, by absolute path.", valueName: "path"))
    var program = "/usr/bin/pinentry"

    @Option(help: ArgumentHelp(
        "The terminal a terminal pinentry (pinentry-tty, -curses) shows on (default: $GPG_TTY, else the terminal on stdin).",
        valueName: "path"))
    var tty: String?

    @Option(help: ArgumentHelp(
        "How long the person has to answer (default: 3 s less than $COFFER_PROMPT_TIMEOUT, the agent's limit; else 60s).",
        valueName: "duration"))
    var timeout: DurationArgument?

    func validate() throws {
        guard program.hasPrefix("/") else { throw ValidationError("--program takes an absolute path") }
    }

    func run() throws {
        // An empty variable counts as unset.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
        guard let kind = environment[PromptVariable.kind].flatMap(PromptKind.init(rawValue:)) else {
            throw CLIError.usage("$\(PromptVariable.kind) is not passphrase or access: this command is run by the agent as its --prompter")
        }
        let prompter = PinentryPrompter(
            program: program, terminal: tty ?? environment["GPG_TTY"] ?? Self.inputTerminal, terminalType: environment["TERM"],
            display: environment["DISPLAY"], timeout: timeout?.duration ?? Self.defaultTimeout(environment),
            environment: ChildEnvironment.passing(PrompterCommand.passedVariables, prefixes: PrompterCommand.passedPrefixes))
        switch kind {
        case .passphrase:
            let text = environment[PromptVariable.text] ?? "Enter the passphrase."
            guard let passphrase = try answer({ () throws(PinentryFailure) in try prompter.ask(passphrase: text) }) else {
                throw ExitCode(.cancelled)
            }
            try passphrase.withUnsafeBytes { bytes throws(CLIError) in try StandardStreams.write(unsafeBytes: bytes) }
            try StandardStreams.write([UInt8(ascii: "\n")])
        case .access:
            guard let question = AccessQuestion(variables: environment) else {
                throw CLIError.usage("an access prompt needs $\(PromptVariable.program), $\(PromptVariable.item) and $\(PromptVariable.vault)")
            }
            try StandardStreams.printLine(try answer { () throws(PinentryFailure) in try prompter.ask(access: question) }.word)
        }
    }

    /// What `ask` gives, or its failure as one line naming the program, with its exit status.
    private func answer<Answer>(_ ask: () throws(PinentryFailure) -> Answer) throws(CLIError) -> Answer {
        do throws(PinentryFailure) {
            return try ask()
        } catch {
            throw CLIError(message: "\(program): \(error)", exitStatus: Self.exitStatus(error))
        }
    }

    /// The terminal on standard input, when it is one.
    private static var inputTerminal: String? {
        guard isatty(STDIN_FILENO) == 1, let name = ttyname(STDIN_FILENO) else { return nil }
        return String(cString: name)
    }

    /// 3 s less than the agent's limit, so that the pinentry ends by itself (restoring the
    /// terminal) before the agent ends it; 60 s when the agent gives none.
    private static func defaultTimeout(_ environment: [String: String]) -> Duration {
        guard let seconds = environment[PromptVariable.timeout].flatMap(Int.init), seconds > 0 else { return .seconds(60) }
        return .seconds(max(seconds - 3, 1))
    }

    private static func exitStatus(_ failure: PinentryFailure) -> ExitStatus {
        switch failure {
        case .cannotRun, .ended, .refused: .unavailable
        case .timedOut: .timedOut
        case .protocolError: .badReply
        case .passphraseWithLineBreak: .dataError
        }
    }
}
