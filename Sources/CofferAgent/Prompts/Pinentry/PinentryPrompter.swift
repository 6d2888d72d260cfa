import Coffer
import CofferBase
import CofferProcess

/// GnuPG's pinentry (pinentry-tty, -curses, -gnome3, -qt…) asking Coffer's questions, over
/// Assuan as gpg-agent drives it (pinentry's manual, "pinentry's Assuan Protocol";
/// docs/prompts.md).
///
/// The program runs by its absolute path with the environment given, in the caller's process
/// group (so that whoever ends the caller's group ends the pinentry too), its standard error
/// kept for a failure's message. It is told where to show (`OPTION ttyname`, `ttytype`,
/// `display`), its time limit (`SETTIMEOUT`, per question) and the title; then:
/// - a passphrase: `SETDESC` the text, `SETPROMPT`, `GETPIN`;
/// - access: two questions, since pinentry-gnome3 shows no third button (`SETNOTOK`): first
///   `CONFIRM` "allow?" (Allow / Deny), then, once allowed, `CONFIRM` "always?" (Always allow /
///   Only this time), each with `SETDESC`, `SETPROMPT` (a graphical pinentry's heading), `SETOK`
///   and `SETCANCEL`. Deny, closing the dialog or its time limit at the first is `deny`; at the
///   second, `once`.
///
/// The whole conversation ends within ``timeout`` and 2 s: past that the pinentry is killed.
package struct PinentryPrompter: Sendable {
    /// The pinentry program's absolute path.
    package var program: String
    /// The terminal a terminal pinentry shows on (`OPTION ttyname`), and its type (`ttytype`).
    package var terminal: String?
    package var terminalType: String?
    /// The X display (`OPTION display`).
    package var display: String?
    /// How long the person has to answer.
    package var timeout: Duration
    /// The pinentry's whole environment.
    package var environment: [String: String]

    package init(
        program: String, terminal: String?, terminalType: String?, display: String?, timeout: Duration, environment: [String: String]
    ) {
        self.program = program
        self.terminal = terminal
        self.terminalType = terminalType
        self.display = display
        self.timeout = timeout
        self.environment = environment
    }

    /// The window title every question has.
    static let title = "Coffer"
    /// The longest passphrase read (as ``PrompterCommand`` reads at most).
    static let maxPassphraseBytes = PrompterCommand.maxAnswerBytes
    /// How much longer than ``timeout`` the conversation may last: the pinentry's own time
    /// limit ends a question first, and it restores the terminal.
    static let grace = Duration.seconds(2)

    /// Asks for a passphrase, showing `text`: the passphrase typed, or `nil` when the person
    /// cancelled, closed the dialog, or let its time pass.
    package func ask(passphrase text: String) throws(PinentryFailure) -> SecureBytes? {
        try converse(dataCapacity: Self.maxPassphraseBytes) { session throws(PinentryFailure) in
            try session.command("SETDESC", text)
            try session.command("SETPROMPT", "Passphrase:")
            guard try session.ask("GETPIN") else { return nil }
            let bytes = session.client.data.bytes
            guard !bytes.isEmpty else { return nil }
            guard !bytes.contains(UInt8(ascii: "\n")), !bytes.contains(UInt8(ascii: "\r")) else { throw .passphraseWithLineBreak }
            return SecureBytes(copying: bytes)
        }
    }

    /// Asks whether a program may read an item: `once`, `always`, or `deny` with
    /// ``AccessDenial/refused`` (the person said no, or did not answer in time).
    package func ask(access question: AccessQuestion) throws(PinentryFailure) -> AccessAnswer {
        try converse(dataCapacity: 0) { session throws(PinentryFailure) in
            try session.command("SETDESC", question.text)
            try session.command("SETPROMPT", "Allow access?")
            try session.command("SETOK", "_Allow")
            try session.command("SETCANCEL", "_Deny")
            guard try session.ask("CONFIRM") else { return .deny(.refused) }
            try session.command("SETDESC", question.alwaysText)
            try session.command("SETPROMPT", "Always allow?")
            try session.command("SETOK", "Al_ways allow")
            try session.command("SETCANCEL", "_Only this time")
            return try session.ask("CONFIRM") ? .always : .once
        }
    }

    /// Starts the pinentry, reads its greeting, tells it where to show and the title, runs
    /// `questions`, and says `BYE`. Lines and data (`dataCapacity` bytes) are read into secure
    /// memory, out of which `questions` copies what it keeps.
    private func converse<Answer>(
        dataCapacity: Int, _ questions: (inout PinentrySession) throws(PinentryFailure) -> Answer
    ) throws(PinentryFailure) -> Answer {
        let deadline = ContinuousClock.now + timeout + Self.grace
        let conversation: ChildConversation
        do throws(ChildRunFailure) {
            let command = ChildCommand(executable: program, environment: environment, processGroup: .caller)
            conversation = try ChildConversation(command, until: deadline)
        } catch {
            guard case .spawn(let failure) = error else { throw .timedOut }
            throw .cannotRun(failure)
        }
        defer { _ = conversation.end(within: .seconds(1)) }
        var answer: Answer?
        _ = try SecureBytes(count: AssuanClient.bufferSize + dataCapacity) { memory throws(PinentryFailure) in
            let client = AssuanClient(
                conversation: conversation, buffer: UnsafeMutableRawBufferPointer(rebasing: memory.prefix(AssuanClient.bufferSize)),
                data: UnsafeMutableRawBufferPointer(rebasing: memory.dropFirst(AssuanClient.bufferSize)))
            var session = PinentrySession(client: client, conversation: conversation, deadline: deadline)
            try session.greet()
            if let terminal {
                try session.command("OPTION", "ttyname=\(terminal)")
                if let terminalType { try session.command("OPTION", "ttytype=\(terminalType)") }
            }
            if let display { try session.command("OPTION", "display=\(display)") }
            try session.command("SETTITLE", Self.title)
            answer = try questions(&session)
            session.bye()
        }
        // The closure returned, so `questions` gave an answer.
        return answer!
    }
}
