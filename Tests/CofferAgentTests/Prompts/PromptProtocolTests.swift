import Coffer
import CofferAgent
import CofferProcess
import CofferTestSupport
import Foundation
import XCTest

/// The prompter protocol (docs/prompts.md) through ``PrompterCommand``, with real shell
/// prompters: an access prompter's word is the answer, and anything else is a typed "deny"
/// with the reason the audit log records; the prompter is told everything in its environment,
/// never its arguments; a passphrase prompt still answers as before, told its kind too.
final class PromptProtocolTests: XCTestCase {
    private let folder = TemporaryFolder()

    private let question = AccessQuestion(program: "/usr/bin/python3", item: "Mail", vault: "/home/ada/default.vault")

    /// Each access prompter (a `/bin/sh -c` command) gives the answer beside it: exactly
    /// `once`, `always` or `deny`, with or without a line break; anything else, nothing, an exit
    /// status other than 0 (with a good word too), a signal, or a command that is not there is
    /// a denial with its reason.
    func testAnAccessPrompterWordIsTheAnswerAndAnythingElseDenies() {
        let cases: [(String, AccessAnswer)] = [
            ("echo once", .once), ("echo always", .always), ("echo deny", .deny(.refused)), ("printf once", .once),
            ("echo maybe", .deny(.badAnswer)), ("true", .deny(.badAnswer)), ("echo", .deny(.badAnswer)),
            ("echo Once", .deny(.badAnswer)), ("echo ' once'", .deny(.badAnswer)), ("printf 'once\\r\\n'", .deny(.badAnswer)),
            ("printf 'once\\nonce\\n'", .deny(.badAnswer)), ("head -c 100000 /dev/zero", .deny(.badAnswer)),
            ("echo once; exit 1", .deny(.failed)), ("exit 1", .deny(.failed)), ("echo always; kill -9 $$", .deny(.failed)),
            ("/nonexistent/prompter", .deny(.failed)),
        ]
        for (command, expected) in cases {
            XCTAssertEqual(PrompterCommand(command: command).ask(access: question), expected, command)
        }
    }

    /// A prompter that sleeps past its limit is ended (with what it started) and the answer is
    /// `deny(timedOut)`, at its limit, not at the sleep's end; a cancelled run is `deny(cancelled)`.
    func testNoAnswerInTimeOrACancelDenies() {
        let started = ContinuousClock.now
        XCTAssertEqual(PrompterCommand(command: "sleep 30; echo always", timeout: .seconds(1)).ask(access: question), .deny(.timedOut))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))

        let run = PrompterCommand.Run()
        run.cancel()
        XCTAssertEqual(PrompterCommand(command: "echo always").ask(access: question, run: run), .deny(.cancelled))
    }

    /// The prompter gets `COFFER_PROMPT_KIND=access`, the program, item and vault as they are
    /// (a line break, ESC and a bidi override included; a NUL, which no environment can hold,
    /// as U+FFFD), `COFFER_PROMPT` with the same values escaped visibly, and its time limit;
    /// none of it is on its command line (/proc/PID/cmdline).
    func testTheQuestionIsInTheEnvironmentAndNeverInTheArguments() throws {
        let marker = UUID().uuidString
        let question = AccessQuestion(
            program: "/opt/\(marker)/evil\u{202E}gpj.exe", item: "Mail\n\(marker)\u{1B}[31m\u{0}x", vault: "/home/ada/\(marker).vault")
        let environment = folder.file("environ")
        let commandLine = folder.file("cmdline")
        let prompter = PrompterCommand(
            command: "cat /proc/$$/environ > '\(environment.path)'; cat /proc/$$/cmdline > '\(commandLine.path)'; echo always",
            timeout: .seconds(30))
        XCTAssertEqual(prompter.ask(access: question), .always)

        let variables = try Self.variables(in: environment)
        XCTAssertEqual(variables["COFFER_PROMPT_KIND"], "access")
        XCTAssertEqual(variables["COFFER_PROMPT_PROGRAM"], question.program)
        XCTAssertEqual(variables["COFFER_PROMPT_ITEM"], "Mail\n\(marker)\u{1B}[31m\u{FFFD}x")
        XCTAssertEqual(variables["COFFER_PROMPT_VAULT"], question.vault)
        XCTAssertEqual(variables["COFFER_PROMPT_TIMEOUT"], "30")
        let text = try XCTUnwrap(variables["COFFER_PROMPT"])
        XCTAssertEqual(text, question.text)
        XCTAssertTrue(text.contains("Program: /opt/\(marker)/evil\\u{202e}gpj.exe\n"), text)
        XCTAssertTrue(text.contains("Item: Mail\\n\(marker)\\x1b[31m\\x00x\n"), text)
        XCTAssertFalse(text.contains("\u{1B}") || text.contains("\u{202E}") || text.contains("\u{0}"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 4, "one value a line: no value adds a line")
        XCTAssertEqual(
            Set(variables.keys.filter { $0.hasPrefix("COFFER_") }),
            ["COFFER_PROMPT", "COFFER_PROMPT_KIND", "COFFER_PROMPT_PROGRAM", "COFFER_PROMPT_ITEM", "COFFER_PROMPT_VAULT", "COFFER_PROMPT_TIMEOUT"])

        let arguments = try String(decoding: Data(contentsOf: commandLine), as: UTF8.self)
        XCTAssertTrue(arguments.hasPrefix("/bin/sh\u{0}-c\u{0}"), arguments)
        XCTAssertFalse(arguments.contains(marker), "nothing of the question in the arguments: \(arguments)")
        XCTAssertFalse(arguments.contains("python3") || arguments.contains("Mail"), arguments)
    }

    /// A passphrase prompter answers as before (its first line), and is told
    /// `COFFER_PROMPT_KIND=passphrase` beside the text; it gets no access variable.
    func testAPassphrasePromptIsToldItsKind() throws {
        let environment = folder.file("environ")
        let prompter = PrompterCommand(command: "cat /proc/$$/environ > '\(environment.path)'; printf 'pass phrase\\nrest\\n'")
        let passphrase = try XCTUnwrap(prompter.ask(passphrase: "Unlock the Coffer collection Login"))
        XCTAssertEqual(passphrase, SecureBytes(copying: Array("pass phrase".utf8)))
        let variables = try Self.variables(in: environment)
        XCTAssertEqual(variables["COFFER_PROMPT_KIND"], "passphrase")
        XCTAssertEqual(variables["COFFER_PROMPT"], "Unlock the Coffer collection Login")
        XCTAssertNil(variables["COFFER_PROMPT_PROGRAM"])
        XCTAssertNil(PrompterCommand(command: "echo; echo second").ask(passphrase: "x"), "an empty first line is dismissed")
        XCTAssertNil(PrompterCommand(command: "echo pass; exit 1").ask(passphrase: "x"), "a failed prompter is dismissed")
    }

    /// The variables in a /proc/PID/environ file.
    private static func variables(in file: URL) throws -> [String: String] {
        let entries = try Data(contentsOf: file).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return Dictionary(entries.compactMap { entry in
            entry.firstIndex(of: "=").map { (String(entry[..<$0]), String(entry[entry.index(after: $0)...])) }
        }) { first, _ in first }
    }
}
