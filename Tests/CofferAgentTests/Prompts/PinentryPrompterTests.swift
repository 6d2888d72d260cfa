import Coffer
import CofferAgent
import CofferProcess
import CofferTestSupport
import Foundation
import XCTest

/// ``PinentryPrompter``'s side of the conversation, against scripted pinentries (`/bin/sh`
/// scripts speaking Assuan, which make the replies a real pinentry rarely gives: data split over
/// lines, status and comment lines, an `INQUIRE`, a crash, a hang, garbage). The real programs
/// (pinentry-tty, -curses, -gnome3) are driven in CofferCLITests' `PinentryPrompterCommandTests`.
final class PinentryPrompterTests: XCTestCase {
    private let folder = TemporaryFolder()

    /// A pinentry that greets, logs every line it gets to `log`, and answers each command with
    /// `replies[KEY]` (lines; `OK` when there is none), where KEY is the verb, numbered for the
    /// questions (`CONFIRM1`, `CONFIRM2`, `GETPIN1`). `BYE` ends it.
    private func scripted(_ replies: [String: String], greeting: String = "OK Pleased to meet you") throws -> (program: String, log: URL) {
        let log = folder.file("log-\(UUID().uuidString)")
        var cases = ""
        for (key, reply) in replies {
            cases += "    \(key)) printf '%s\\n' \(reply.split(separator: "\n").map { "'\($0)'" }.joined(separator: " "));;\n"
        }
        let script = """
            #!/bin/sh
            printf '%s\\n' '\(greeting)'
            questions=0
            while IFS= read -r line; do
              printf '%s\\n' "$line" >> '\(log.path)'
              key=${line%% *}
              case "$key" in CONFIRM|GETPIN) questions=$((questions + 1)); key="$key$questions";; esac
              case "$key" in
            \(cases)    BYE) echo 'OK closing connection'; exit 0;;
                *) echo OK;;
              esac
            done
            """
        return (try program(script), log)
    }

    /// `script` as an executable file.
    private func program(_ script: String) throws -> String {
        let program = folder.file("pinentry-\(UUID().uuidString)")
        try script.write(to: program, atomically: true, encoding: .utf8)
        chmod(program.path, 0o700)
        return program.path
    }

    private func prompter(_ program: String, timeout: Duration = .seconds(20)) -> PinentryPrompter {
        PinentryPrompter(
            program: program, terminal: "/dev/pts/999", terminalType: "xterm-256color", display: ":99", timeout: timeout,
            environment: ["PATH": ChildEnvironment.systemPath])
    }

    private func commands(_ log: URL) throws -> [String] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    private let question = AccessQuestion(program: "/usr/bin/python3", item: "Mail 100%", vault: "/home/ada/default.vault")
    private let cancelled = "ERR 83886179 Operation cancelled <Pinentry>"

    /// Access, as the commands show: where to show, the title, the question with its buttons and
    /// the time left, then (once allowed) the second question. OK, OK is `always`; OK then a
    /// no is `once`; a no at the first (cancel, "not OK", pinentry's own timeout) is `deny`, and
    /// the second is never asked.
    func testAccessIsTwoConfirmations() throws {
        let always = try scripted([:])
        XCTAssertEqual(try prompter(always.program).ask(access: question), .always)
        let sent = try commands(always.log)
        XCTAssertEqual(Array(sent.prefix(4)), ["OPTION ttyname=/dev/pts/999", "OPTION ttytype=xterm-256color", "OPTION display=:99", "SETTITLE Coffer"])
        XCTAssertEqual(
            sent[4], "SETDESC A program asks to read an item of your Coffer vault.%0AProgram: /usr/bin/python3%0AItem: Mail 100%25%0AVault: /home/ada/default.vault")
        XCTAssertEqual(Array(sent[5...7]), ["SETPROMPT Allow access?", "SETOK _Allow", "SETCANCEL _Deny"])
        let timeout = try XCTUnwrap(sent[8].split(separator: " ").last.flatMap { Int($0) }, sent[8])
        XCTAssertTrue(sent[8].hasPrefix("SETTIMEOUT ") && (15...20).contains(timeout), sent[8])
        XCTAssertEqual(sent[9], "CONFIRM")
        XCTAssertTrue(sent[10].hasPrefix("SETDESC Always allow /usr/bin/python3 to read Mail 100%25, without asking again?%0A"), sent[10])
        XCTAssertEqual(Array(sent[11...13]), ["SETPROMPT Always allow?", "SETOK Al_ways allow", "SETCANCEL _Only this time"])
        XCTAssertTrue(sent[14].hasPrefix("SETTIMEOUT "), sent[14])
        XCTAssertEqual(Array(sent[15...]), ["CONFIRM", "BYE"])

        for no in [cancelled, "S BUTTON_INFO close\nERR 83886194 Not confirmed <Pinentry>", "ERR 83886142 Timeout <Pinentry>"] {
            let once = try scripted(["CONFIRM2": no])
            XCTAssertEqual(try prompter(once.program).ask(access: question), .once, no)
            let denied = try scripted(["CONFIRM1": no])
            XCTAssertEqual(try prompter(denied.program).ask(access: question), .deny(.refused), no)
            XCTAssertEqual(try commands(denied.log).filter { $0 == "CONFIRM" }.count, 1, "the second question is not asked")
        }
    }

    /// A passphrase: the description, the prompt, `GETPIN`; its data lines, split and escaped
    /// among status and comment lines, give the passphrase whole; an `INQUIRE` on the way is
    /// answered `CAN` and the reply goes on; cancel or no data is `nil`.
    func testAPassphraseComesFromTheDataLines() throws {
        let inquired = folder.file("inquired")
        let quality = try program("""
            #!/bin/sh
            echo '# pinentry-like'
            echo 'OK Pleased to meet you'
            while IFS= read -r line; do
              case "$line" in
                GETPIN)
                  echo 'INQUIRE QUALITY abc'; IFS= read -r answer; printf '%s' "$answer" > '\(inquired.path)'
                  echo 'S PASSWORD_FROM_CACHE'; echo 'D s3cr%25'; echo '# between'; echo 'D et %E2%9C%93'; echo OK;;
                BYE) echo OK; exit 0;;
                *) echo OK;;
              esac
            done
            """)
        let answer = try XCTUnwrap(try prompter(quality).ask(passphrase: "Unlock the Coffer collection Login"))
        XCTAssertEqual(answer, SecureBytes(copying: Array("s3cr%et ✓".utf8)))
        XCTAssertEqual(try String(contentsOf: inquired, encoding: .utf8), "CAN", "the INQUIRE was answered CAN")

        let plain = try scripted(["GETPIN1": "D pass\nOK"])
        XCTAssertEqual(try prompter(plain.program).ask(passphrase: "Unlock the Coffer collection Login"), SecureBytes(copying: Array("pass".utf8)))
        let sent = Array(try commands(plain.log).dropFirst(4))
        XCTAssertEqual(Array(sent.prefix(2)), ["SETDESC Unlock the Coffer collection Login", "SETPROMPT Passphrase:"])
        XCTAssertTrue(sent[2].hasPrefix("SETTIMEOUT "), sent[2])
        XCTAssertEqual(Array(sent.dropFirst(3)), ["GETPIN", "BYE"])

        XCTAssertNil(try prompter(try scripted(["GETPIN1": cancelled]).program).ask(passphrase: "x"), "cancelled")
        XCTAssertNil(try prompter(try scripted(["GETPIN1": "OK"]).program).ask(passphrase: "x"), "an empty passphrase is dismissed")
        XCTAssertThrowsError(try prompter(try scripted(["GETPIN1": "D a%0Ab\nOK"]).program).ask(passphrase: "x")) {
            XCTAssertEqual($0 as? PinentryFailure, .passphraseWithLineBreak)
        }
    }

    /// A pinentry that is missing, fails a command, crashes, hangs, or says something that is not
    /// Assuan gives a typed failure whose one line names what happened (with the pinentry's own
    /// last line on stderr), within the time limit and its 2 s of grace; never an answer.
    func testAPinentryThatFailsGivesATypedFailure() throws {
        XCTAssertThrowsError(try prompter("/nonexistent/pinentry").ask(access: question)) {
            guard case .cannotRun(.cannotRun("/nonexistent/pinentry", ENOENT))? = $0 as? PinentryFailure else { return XCTFail("\($0)") }
        }
        let noTerminal = try scripted(["CONFIRM1": "S ERROR curses.isatty 83918950\nERR 83918950 Inappropriate ioctl for device <Pinentry>"])
        XCTAssertThrowsError(try prompter(noTerminal.program).ask(access: question)) {
            XCTAssertEqual($0 as? PinentryFailure, .refused(command: "CONFIRM", AssuanError(code: 83_918_950, text: "Inappropriate ioctl for device <Pinentry>")))
        }
        let crash = try program("#!/bin/sh\necho 'OK hi'\nread -r line\necho 'pinentry: cannot open display' >&2\nexit 1\n")
        XCTAssertThrowsError(try prompter(crash).ask(access: question)) { error in
            XCTAssertEqual(error as? PinentryFailure, .ended(.exited(1), stderr: "pinentry: cannot open display\n"))
            XCTAssertEqual("\(error)", "the pinentry ended (exit status 1) before it answered: pinentry: cannot open display")
        }
        let killed = try program("#!/bin/sh\necho 'OK hi'\nkill -SEGV $$\n")
        XCTAssertThrowsError(try prompter(killed).ask(passphrase: "x")) {
            XCTAssertEqual($0 as? PinentryFailure, .ended(.signalled(SIGSEGV), stderr: ""))
        }
        let greetings: [(String, AssuanProtocolError)] = [
            ("hello", .malformed), ("ERR 1 not now", .noGreeting), ("OK " + String(repeating: "x", count: 2000), .lineTooLong),
        ]
        for (greeting, error) in greetings {
            let garbage = try program("#!/bin/sh\nprintf '%s\\n' '\(greeting)'\nsleep 30\n")
            XCTAssertThrowsError(try prompter(garbage).ask(access: question)) {
                XCTAssertEqual($0 as? PinentryFailure, .protocolError(error, stderr: ""))
            }
        }
        let garbled = try scripted(["CONFIRM1": "YES"])
        XCTAssertThrowsError(try prompter(garbled.program).ask(access: question)) {
            XCTAssertEqual($0 as? PinentryFailure, .protocolError(.malformed, stderr: ""))
        }
        let started = ContinuousClock.now
        let hang = try program("#!/bin/sh\nexec sleep 300\n")
        XCTAssertThrowsError(try prompter(hang, timeout: .seconds(1)).ask(access: question)) {
            XCTAssertEqual($0 as? PinentryFailure, .timedOut)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(8), "1 s and the 2 s of grace, and the second to end it")
    }
}
