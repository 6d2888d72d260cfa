import CofferAgent
import CofferCommandLine
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// `coffer prompter pinentry` (docs/prompts.md) with GnuPG's own pinentry programs: pinentry-tty
/// and pinentry-curses in a real terminal (tmux: the screen read with `capture-pane`, keys
/// typed with `send-keys`), pinentry-gnome3 under Xvfb (its dialog read and pressed through
/// AT-SPI). What the person sees names the program, the item and the vault, escaped; each
/// answer maps to the protocol's word; a typed passphrase comes back; a pinentry that is missing
/// or fails is one line on stderr and no answer.
final class PinentryPrompterCommandTests: CLITestCase {
    private let marker = UUID().uuidString
    private lazy var question = AccessQuestion(
        program: "/usr/bin/python3", item: "Mail for Ada", vault: "/home/ada/.local/share/coffer/\(marker).vault")

    private func requirePinentry(_ name: String) throws -> String {
        let path = "/usr/bin/\(name)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw MissingPrerequisite.error("\(name) is not installed (scripts/bootstrap.sh test installs it)")
        }
        return path
    }

    /// `value` quoted for `/bin/sh`.
    private static func quoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A script that runs `coffer prompter pinentry ARGUMENTS` as the agent would (the question
    /// in its environment, values set by `export`, never on a command line), its answer to
    /// `answer` and its exit status to `status` (whole when it appears).
    private func prompterScript(_ variables: [String: String], _ arguments: [String]) -> String {
        let exports = variables.sorted { $0.key < $1.key }.map { "export \($0.key)=\(Self.quoted($0.value))" }
        return (exports + [
            "export COFFER_TEST_MARKER=\(marker)",
            ([BuiltProducts.executable("coffer").path, "prompter", "pinentry"] + arguments).map(Self.quoted).joined(separator: " ")
                + " > \(Self.quoted(folder.file("answer").path)) 2> \(Self.quoted(folder.file("errors").path))",
            "echo $? > \(Self.quoted(folder.file("status.part").path)); mv \(Self.quoted(folder.file("status.part").path)) \(Self.quoted(folder.file("status").path))",
            "sleep 600",
        ]).joined(separator: "\n")
    }

    private func accessVariables(_ question: AccessQuestion) -> [String: String] {
        [
            "COFFER_PROMPT_KIND": "access", "COFFER_PROMPT": question.text, "COFFER_PROMPT_PROGRAM": question.program,
            "COFFER_PROMPT_ITEM": question.item, "COFFER_PROMPT_VAULT": question.vault, "COFFER_PROMPT_TIMEOUT": "60",
        ]
    }

    /// Waits for the prompter's end: its exit status, answer and stderr.
    private func outcome(file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, answer: String, errors: String) {
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: folder.file("status").path), ContinuousClock.now < deadline { usleep(50_000) }
        let status = try String(contentsOf: folder.file("status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { for name in ["status", "answer", "errors"] { try? FileManager.default.removeItem(at: folder.file(name)) } }
        return (
            Int32(status) ?? -1, try String(contentsOf: folder.file("answer"), encoding: .utf8),
            try String(contentsOf: folder.file("errors"), encoding: .utf8)
        )
    }

    /// pinentry-tty in a terminal: the first question shows the program, the item and the vault
    /// with Allow / Deny ([ad]); Allow then shows the second, Always allow / Only this time
    /// ([wo]). a, o is `once`; a, w is `always`; d is `deny` (and no second question).
    func testPinentryTTYAsksAccessAndEachAnswerMaps() throws {
        let program = try requirePinentry("pinentry-tty")
        for (keys, expected) in [(["a", "o"], "once"), (["a", "w"], "always"), (["d"], "deny")] {
            let terminal = try TmuxTerminal(folder: folder, script: prompterScript(accessVariables(question), ["--program", program]))
            let first = try terminal.waitForScreen(showing: "[ad]?")
            for shown in [
                "A program asks to read an item of your Coffer vault.", "Program: /usr/bin/python3", "Item: Mail for Ada",
                "Vault: /home/ada/.local/share/coffer/\(marker).vault", "  Allow", "  Deny",
            ] {
                XCTAssertTrue(first.contains(shown), "\(shown) in\n\(first)")
            }
            try terminal.type(keys[0])
            if keys.count > 1 {
                let second = try terminal.waitForScreen(showing: "[wo]?")
                XCTAssertTrue(second.contains("Always allow /usr/bin/python3 to read Mail for Ada, without asking again?"), second)
                XCTAssertTrue(second.contains("  Always allow") && second.contains("  Only this time"), second)
                try terminal.type(keys[1])
            }
            let result = try outcome()
            XCTAssertEqual(result.status, 0, result.errors)
            XCTAssertEqual(result.answer, expected + "\n", "keys \(keys)")
            XCTAssertEqual(result.errors, "")
            if keys == ["d"] { XCTAssertFalse(try terminal.screen().contains("[wo]?"), "no second question after Deny") }
        }
    }

    /// pinentry-tty asks for a passphrase with the agent's text and the prompt `Passphrase:`,
    /// shows nothing of what is typed, and the prompter writes the typed passphrase as one line.
    func testPinentryTTYReturnsTheTypedPassphrase() throws {
        let program = try requirePinentry("pinentry-tty")
        let variables = ["COFFER_PROMPT_KIND": "passphrase", "COFFER_PROMPT": "Unlock the Coffer collection Login", "COFFER_PROMPT_TIMEOUT": "60"]
        let terminal = try TmuxTerminal(folder: folder, script: prompterScript(variables, ["--program", program]))
        try terminal.waitForScreen(showing: "Unlock the Coffer collection Login", "Passphrase:")
        try terminal.type("correct horse % battery")
        XCTAssertFalse(try terminal.screen().contains("horse"), "the passphrase is not echoed")
        try terminal.press("Enter")
        let result = try outcome()
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertEqual(result.answer, "correct horse % battery\n")
    }

    /// pinentry-curses in a terminal, with a label and a path holding a line break, an escape
    /// sequence and a bidi override: the dialog shows them as visible escapes, each value on its
    /// own line (no forged line, no colour, no reordering). Enter on Allow then Tab, Enter (Only
    /// this time) is `once`; Tab, Enter at the first (Deny) is `deny`.
    func testPinentryCursesShowsValuesEscapedAndAnswers() throws {
        let program = try requirePinentry("pinentry-curses")
        let hostile = AccessQuestion(
            program: "/tmp/evil\u{202E}gpj.sh", item: "Mail\nVault: /forged\u{1B}[31m", vault: "/home/ada/\(marker).vault")
        for (steps, expected) in [([["Enter"], ["Tab", "Enter"]], "once"), ([["Tab", "Enter"]], "deny")] {
            let terminal = try TmuxTerminal(
                folder: folder, script: prompterScript(accessVariables(hostile), ["--program", program]), width: 120, height: 30)
            let screen = try terminal.waitForScreen(showing: "<Allow>", "<Deny>")
            XCTAssertTrue(screen.contains("Program: /tmp/evil\\u{202e}gpj.sh"), screen)
            XCTAssertTrue(screen.contains("Item: Mail\\nVault: /forged\\x1b[31m"), screen)
            XCTAssertEqual(screen.components(separatedBy: "Vault: /home/ada/").count, 2, "one Vault line, the real one:\n\(screen)")
            XCTAssertFalse(screen.contains("\u{202E}") || screen.contains("\u{1B}"), screen)
            for key in steps[0] { try terminal.press(key) }
            if steps.count > 1 {
                try terminal.waitForScreen(showing: "<Always allow>", "<Only this time>")
                for key in steps[1] { try terminal.press(key) }
            }
            let result = try outcome()
            XCTAssertEqual(result.status, 0, result.errors)
            XCTAssertEqual(result.answer, expected + "\n", "keys \(steps)")
        }
    }

    /// The whole way, as the agent asks (``PrompterCommand``, `/bin/sh -c`, no terminal of its
    /// own): `--prompter "coffer prompter pinentry --tty …"` shows pinentry-tty on a terminal and
    /// the answer typed there comes back; the question is in the environment only: neither the
    /// prompter's nor the pinentry's command line holds any of it, and the pinentry's
    /// environment holds no `COFFER_` variable.
    func testThePrompterCommandRunsPinentryWithNothingOnACommandLine() throws {
        let program = try requirePinentry("pinentry-tty")
        let terminal = try TmuxTerminal(folder: folder, script: "exec sleep 600")
        let answer = askInBackground(["--program", program, "--tty", try terminal.device()], within: .seconds(60))
        try terminal.waitForScreen(showing: "Item: Mail for Ada", "[ad]?")

        let pinentry = try XCTUnwrap(ProcessTable.processes(withCommandLineContaining: program).first { ProcessTable.commandLine(of: $0) == program })
        let prompter = try XCTUnwrap(Self.parent(of: pinentry))
        for pid in [pinentry, prompter] {
            let line = ProcessTable.commandLine(of: pid)
            XCTAssertFalse(line.contains(marker) || line.contains("python3") || line.contains("Mail"), "command line \(line)")
        }
        XCTAssertTrue(ProcessTable.commandLine(of: prompter).contains("prompter pinentry"))
        let environment = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(pinentry)/environ")), as: UTF8.self)
        XCTAssertFalse(environment.contains("COFFER_") || environment.contains(marker), "the pinentry's environment")

        try terminal.type("a")
        try terminal.waitForScreen(showing: "[wo]?")
        try terminal.type("w")
        XCTAssertEqual(answer.wait(), .always)
    }

    /// Asks ``question`` as the agent does, off its loop: through ``PrompterCommand`` running
    /// `coffer prompter pinentry ARGUMENTS` with the agent's limit `time`, on another thread.
    private func askInBackground(_ arguments: [String], within time: Duration) -> PendingAnswer {
        let command = ([BuiltProducts.executable("coffer").path, "prompter", "pinentry"] + arguments).map(Self.quoted).joined(separator: " ")
        let pending = PendingAnswer()
        DispatchQueue.global().async { [question] in
            pending.value = PrompterCommand(command: command, timeout: time).ask(access: question)
            pending.done.signal()
        }
        return pending
    }

    /// The answer of a prompt asked on another thread: written before ``done`` is signalled,
    /// read after it is waited for.
    private final class PendingAnswer: @unchecked Sendable {
        var value: AccessAnswer?
        let done = DispatchSemaphore(value: 0)

        /// The answer, once given (20 s at most).
        func wait() -> AccessAnswer? {
            done.wait(timeout: .now() + 20) == .success ? value : nil
        }
    }

    /// The agent's time limit ends the pinentry too: it runs in the prompter's process group,
    /// which the agent kills whole, so a prompter with a longer limit of its own (here 60 s
    /// against the agent's 2 s) leaves no pinentry behind, and the answer is `deny(timedOut)`.
    func testTheAgentsTimeLimitEndsThePinentryToo() throws {
        let program = try requirePinentry("pinentry-tty")
        let terminal = try TmuxTerminal(folder: folder, script: "exec sleep 600")
        let answer = askInBackground(["--program", program, "--tty", try terminal.device(), "--timeout", "60s"], within: .seconds(2))
        try terminal.waitForScreen(showing: "[ad]?")
        XCTAssertEqual(ProcessTable.processes(withCommandLineContaining: program).filter { ProcessTable.commandLine(of: $0) == program }.count, 1)
        XCTAssertEqual(answer.wait(), .deny(.timedOut))
        let left = ProcessTable.waitUntilGone(commandLineContaining: program, timeout: .seconds(5))
        XCTAssertEqual(left, [], "no prompter or pinentry left: \(left.map(ProcessTable.commandLine(of:)))")
    }

    /// `--prompter "coffer prompter pinentry …"` as the agent runs it for the Secret Service: a
    /// `secret-tool lookup` of an item in the locked login collection makes pinentry-tty ask for
    /// the vault's passphrase on a terminal; the passphrase typed there unlocks the collection,
    /// and the lookup gets the secret.
    func testTheAgentUnlocksTheLoginCollectionThroughPinentry() throws {
        let program = try requirePinentry("pinentry-tty")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool") else {
            throw MissingPrerequisite.error("secret-tool is missing (Debian: libsecret-tools)")
        }
        let bus = try PrivateBus()
        try initVaultWithItem()
        try openAccessPolicy()
        let terminal = try TmuxTerminal(folder: folder, script: "exec sleep 600")
        let prompter = [BuiltProducts.executable("coffer").path, "prompter", "pinentry", "--program", program, "--tty", try terminal.device()]
            .map(Self.quoted).joined(separator: " ")
        let start = try coffer(
            ["agent", "start", "--secret-service", "--prompter", prompter],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_PASSPHRASE": nil])
        XCTAssertEqual(start.status, 0, start.stderrText)
        defer { _ = try? coffer(["agent", "stop"]) }

        let lookup = try ChildProcess.start("/usr/bin/secret-tool", ["lookup", "service", "mail", "username", "ada"], environment: bus.clientEnvironment)
        try terminal.waitForScreen(showing: "Unlock the Coffer collection Login", "Passphrase:")
        try terminal.type(passphrase)
        try terminal.press("Enter")
        let found = try lookup.wait(timeout: .seconds(30))
        XCTAssertEqual(found.stdoutText, "first", found.stderrText)
    }

    /// The parent of `pid` (field 4 of /proc/PID/stat).
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(end, offsetBy: 2)...].split(separator: " ").dropFirst().first.flatMap { pid_t($0) }
    }

    /// pinentry-gnome3 under Xvfb, on a D-Bus session of its own (which activates gcr's system
    /// prompter on that display; Fixtures/pinentry_gnome3.py reads and presses it through AT-SPI):
    /// the dialog shows the question with Deny / Allow, then Only this time / Always allow;
    /// Allow, Always allow is `always`, Deny is `deny` (and no second dialog), and a passphrase
    /// typed in its field comes back as the answer.
    func testPinentryGnome3ShowsTheQuestionAndItsButtonsAnswer() throws {
        _ = try requirePinentry("pinentry-gnome3")
        for tool in ["/usr/bin/xvfb-run", "/usr/bin/dbus-run-session", "/usr/libexec/gcr-prompter", "/usr/libexec/at-spi-bus-launcher"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw MissingPrerequisite.error("\(tool) is not installed (scripts/bootstrap.sh test installs it)")
        }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pinentry_gnome3.py")
        let screenshots = folder.file("screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let cases: [(mode: String, choices: [String], answer: String, dialogs: Int)] = [
            ("access", ["Allow", "Always allow"], "always\n", 2), ("access", ["Deny"], "deny\n", 1), ("passphrase", ["s3cret pass"], "s3cret pass\n", 1),
        ]
        for (mode, choices, answer, dialogs) in cases {
            let output = try ChildProcess.run(
                "/usr/bin/xvfb-run",
                // -noreset: the X server would reset when its last client leaves (the AT-SPI
                // launcher, early), and refuse the dialog's connection meanwhile.
                ["-a", "-s", "-screen 0 1024x768x24 -noreset", "/usr/bin/dbus-run-session", "--", "/usr/bin/python3", fixture.path,
                 BuiltProducts.executable("coffer").path, screenshots.path, mode] + choices,
                environment: ["DBUS_SESSION_BUS_ADDRESS": nil, "DISPLAY": nil], timeout: .seconds(180 * TestTiming.scale))
            if output.stderrText.contains("No module named 'pyatspi'") {
                throw MissingPrerequisite.error("python3-pyatspi is not installed (scripts/bootstrap.sh test installs it)")
            }
            XCTAssertEqual(output.status, 0, output.stderrText)
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
            XCTAssertEqual(report["answer"] as? String, answer, "\(mode) \(choices): \(report["stderr"] ?? "")")
            XCTAssertEqual(report["status"] as? Int, 0)
            let shown = try XCTUnwrap(report["dialogs"] as? [[String: Any]])
            XCTAssertEqual(shown.count, dialogs, "\(shown)")
            let first = (shown.first?["labels"] as? [String]) ?? []
            if mode == "access" {
                XCTAssertTrue(first.contains { $0.contains("Program: /usr/bin/python3\nItem: Mail for Ada\nVault: ") }, "\(first)")
                XCTAssertEqual(Set(shown[0]["buttons"] as? [String] ?? []), ["Allow", "Deny"])
            } else {
                XCTAssertTrue(first.contains("Unlock the Coffer collection Login") && first.contains("Passphrase:"), "\(first)")
            }
            if dialogs == 2 {
                let second = (shown[1]["labels"] as? [String]) ?? []
                XCTAssertTrue(second.contains { $0.hasPrefix("Always allow /usr/bin/python3 to read Mail for Ada, without asking again?") }, "\(second)")
                XCTAssertEqual(Set(shown[1]["buttons"] as? [String] ?? []), ["Always allow", "Only this time"])
            }
        }
    }

    /// A pinentry that is not there, or that cannot show (pinentry-curses with no terminal),
    /// is one line on stderr naming the program, an exit status from the table and nothing on
    /// stdout, which the agent takes as `deny(failed)`; a prompter run outside the agent (no
    /// `$COFFER_PROMPT_KIND`) is a usage error.
    func testAMissingOrFailingPinentryIsOneLineAndNoAnswer() throws {
        var environment = accessVariables(question).mapValues { Optional($0) }
        environment["GPG_TTY"] = .some(nil)
        let missing = try coffer(["prompter", "pinentry", "--program", "/nonexistent/pinentry"], environment: environment)
        assertFailure(missing, status: .unavailable, message: "/nonexistent/pinentry: cannot run /nonexistent/pinentry: No such file or directory")
        XCTAssertEqual(missing.stdoutText, "")

        let curses = try requirePinentry("pinentry-curses")
        environment["DBUS_SESSION_BUS_ADDRESS"] = .some(nil)
        let noTerminal = try coffer(["prompter", "pinentry", "--program", curses], environment: environment)
        XCTAssertEqual(noTerminal.exitStatus, .unavailable, noTerminal.stderrText)
        XCTAssertEqual(noTerminal.stdoutText, "")
        XCTAssertEqual(noTerminal.stderrText.split(separator: "\n").count, 1, noTerminal.stderrText)
        XCTAssertTrue(noTerminal.stderrText.hasPrefix("coffer: \(curses): the pinentry answered CONFIRM with ERR "), noTerminal.stderrText)

        let command = [BuiltProducts.executable("coffer").path, "prompter", "pinentry", "--program", "/nonexistent/pinentry"].joined(separator: " ")
        XCTAssertEqual(PrompterCommand(command: command).ask(access: question), .deny(.failed))

        let outside = try coffer(["prompter", "pinentry"], environment: ["COFFER_PROMPT_KIND": nil])
        XCTAssertEqual(outside.exitStatus, .usage, outside.stderrText)
        XCTAssertEqual(try coffer(["prompter", "pinentry", "--program", "pinentry-tty"], environment: environment).exitStatus, .usage)
    }
}
