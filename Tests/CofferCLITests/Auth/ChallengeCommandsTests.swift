import CofferTestSupport
import CofferDevBackend
import Foundation
import XCTest

/// `coffer request` against the MobileFirst runtime and the MCA realm of an in-process dev backend, each run a separate `coffer` process.
final class ChallengeCommandsTests: XCTestCase {
    var backend: DevBackend!
    var cli: CofferCLI!
    let clock = TestClock()

    override func setUp() async throws {
        try await startBackend { _ in }
        cli = try CofferCLI.withNewVault()
    }

    override func tearDown() async throws {
        await backend.stop()
        cli.remove()
    }

    private func startBackend(_ configure: (inout DevBackend.Configuration) -> Void) async throws {
        let clock = self.clock
        var configuration = DevBackend.Configuration(now: { clock.now }, logger: quietLogger)
        configure(&configuration)
        backend = try await DevBackend.start(configuration)
    }

    private func url(_ resource: String) -> String { backend.mobileFirstURL(resource).absoluteString }

    /// `coffer request URL --mobilefirst`, with `answers` (JSON) on file descriptor 3 when given.
    private func request(_ target: String, _ options: [String] = ["--mobilefirst"], answers: String? = nil) throws -> ChildProcess.Output {
        guard let answers else { return try cli.run(["request", target] + options) }
        return try cli.run(["request", target] + options + ["--answers-json-fd", "3"], inputs: [3: Data(answers.utf8)])
    }

    /// Scripted answers: a wrong PIN twice, then the right one: exit 0 and the balance on stdout, no PIN printed.
    func testScriptedAnswersWrongTwiceThenRightPrintTheBalance() throws {
        let run = try request(url("balance"), answers: #"{"PinCodeAttempts": [{"pin": "0000"}, {"pin": "0001"}, {"pin": "1234"}]}"#)
        XCTAssertEqual(run.status, 0, run.stderrText)
        XCTAssertEqual(run.stdoutText, #"{"balance":"19938.80"}"# + "\n")
        XCTAssertEqual(run.stderrText, "")
        XCTAssertEqual(backend.statistics.challenges, 3)
    }

    /// When the scripted answers run out, the challenge is cancelled: exit 9 with a one-line reason.
    func testAnswersThatRunOutCancelWithExit9() throws {
        let run = try request(url("balance"), answers: #"{"PinCodeAttempts": [{"pin": "0000"}]}"#)
        XCTAssertEqual(run.exitStatus, .challengeCancelled)
        XCTAssertEqual(run.stderrText, "coffer: the PinCodeAttempts challenge was cancelled\n")
        let none = try request(url("balance"))
        XCTAssertEqual(none.exitStatus, .challengeCancelled, "without answers or a terminal, challenges are cancelled")
    }

    /// Three wrong PINs block the check: exit 8 with "blocked for 60 s", and the stored client stays blocked in the next process.
    func testThreeWrongPINsExit8Blocked() throws {
        let run = try request(url("balance"), answers: #"{"PinCodeAttempts": [{"pin": "1"}, {"pin": "2"}, {"pin": "3"}]}"#)
        XCTAssertEqual(run.exitStatus, .blocked)
        XCTAssertEqual(run.stderrText, "coffer: PinCodeAttempts is blocked for 60 s\n")
        let next = try request(url("balance"), answers: #"{"PinCodeAttempts": [{"pin": "1234"}]}"#)
        XCTAssertEqual(next.exitStatus, .blocked, "the next process is the same (stored) client, still blocked")
        clock.advance(by: 60)
        let later = try request(url("balance"), answers: #"{"PinCodeAttempts": [{"pin": "1234"}]}"#)
        XCTAssertEqual(later.status, 0, later.stderrText)
    }

    /// Remember-me across a restart: a second process, with no answers, gets the resource without a challenge after the 60 s success (within 120 s).
    func testRememberMeAcrossProcesses() async throws {
        await backend.stop()
        try await startBackend { $0.mobileFirst.tokenLifetime = 30 }
        let login = try request(url("protected"), answers: #"{"UserLogin": [{"username": "john", "password": "john", "rememberMe": true}]}"#)
        XCTAssertEqual(login.status, 0, login.stderrText)
        XCTAssertEqual(backend.statistics.challenges, 1)

        clock.advance(by: 90)  // the token (30 s) and the plain success (60 s) are over; remember-me (120 s) is not
        let restarted = try request(url("protected"))
        XCTAssertEqual(restarted.status, 0, restarted.stderrText)
        XCTAssertTrue(restarted.stdoutText.contains(#""user":"john""#), restarted.stdoutText)
        XCTAssertEqual(backend.statistics.challenges, 1, "the restarted process was not challenged")
        XCTAssertEqual(backend.statistics.registrations, 1, "the restarted process is the stored client")
    }

    /// Without remember-me, a second process after the 60 s success is challenged (and, with no answers, exits 9).
    func testWithoutRememberMeTheNextProcessIsChallenged() async throws {
        await backend.stop()
        try await startBackend { $0.mobileFirst.tokenLifetime = 30 }
        let login = try request(url("protected"), answers: #"{"UserLogin": [{"username": "john", "password": "john"}]}"#)
        XCTAssertEqual(login.status, 0, login.stderrText)
        clock.advance(by: 90)
        let restarted = try request(url("protected"))
        XCTAssertEqual(restarted.exitStatus, .challengeCancelled)
        XCTAssertEqual(restarted.stderrText, "coffer: the UserLogin challenge was cancelled\n")
    }

    /// The MCA realm through the CLI: the right answer prints the user's identity (exit 0); a wrong one exits 7 with the realm's reason.
    func testMobileClientAccessRealm() throws {
        let target = backend.clientAccessProtectedURL.absoluteString
        let options = ["--mca-tenant", ClientAccessConfiguration.defaultTenantID]
        let wrong = try request(target, options, answers: #"{"customRealm": [{"username": "demo", "password": "nope"}]}"#)
        XCTAssertEqual(wrong.exitStatus, .challengeFailed)
        XCTAssertEqual(wrong.stderrText, "coffer: the customRealm challenge failed: wrong user name or password\n")
        let right = try request(target, options, answers: #"{"customRealm": [{"username": "demo", "password": "demo-password"}]}"#)
        XCTAssertEqual(right.status, 0, right.stderrText)
        XCTAssertTrue(right.stdoutText.contains(#""userIdentity":{"attributes":{},"authBy":"customRealm","displayName":"demo","id":"demo"}"#), right.stdoutText)
        XCTAssertFalse(right.stdoutText.contains("demo-password") || right.stderrText.contains("demo-password"))
    }

    /// Bad --answers-json-fd input is a usage error (64) naming the option.
    func testMalformedAnswersAreAUsageError() throws {
        let run = try request(url("balance"), answers: #"{"PinCodeAttempts": {"pin": "1234"}}"#)
        XCTAssertEqual(run.exitStatus, .usage)
        XCTAssertTrue(run.stderrText.hasPrefix("coffer: --answers-json-fd:"), run.stderrText)
        let alone = try cli.run(["request", url("balance"), "--answers-json-fd", "3"], inputs: [3: Data("{}".utf8)])
        XCTAssertEqual(alone.exitStatus, .usage, "--answers-json-fd needs --mobilefirst or --mca-tenant")
    }

    /// `coffer request --help` documents the challenge options and the answers' JSON (its exit
    /// statuses: `ExitStatusHelpTests`); `dev-backend --help` the checks' defaults.
    func testRequestHelpDocumentsChallenges() throws {
        let help = try cli.run(["request", "--help"])
        for text in ["--mobilefirst", "--mca-tenant", "--answers-json-fd", "--runtime", "PinCodeAttempts"] {
            XCTAssertTrue(help.stdoutText.contains(text), text)
        }
        let devBackend = try cli.run(["dev-backend", "--help"])
        for text in ["PinCodeAttempts  PIN 1234", "remember-me 120 s", "tenant coffer-tenant, realm customRealm"] {
            XCTAssertTrue(devBackend.stdoutText.contains(text), text)
        }
    }

    /// On a terminal: the prompt shows errorMsg and the attempts left, and neither the wrong nor the right PIN is echoed.
    func testTerminalPromptShowsAttemptsAndHidesThePIN() throws {
        let steps = #"[["PIN: ", "0000"], ["PIN: ", "1234"]]"#
        let run = try onTerminal(steps, ["request", url("balance"), "--mobilefirst"])
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderrText)
        let shown = run.stdoutText
        XCTAssertTrue(shown.contains("PinCodeAttempts: an answer is needed (3 attempts left)"), shown)
        XCTAssertTrue(shown.contains("PinCodeAttempts: Pin code is not valid. (2 attempts left)"), shown)
        XCTAssertTrue(shown.contains(#"{"balance":"19938.80"}"#), shown)
        XCTAssertFalse(shown.contains("0000") || shown.contains("1234"), "a PIN was echoed: \(shown)")
    }

    /// On a terminal, UserLogin asks for a user name (echoed), a password (not echoed) and remember-me.
    func testTerminalLoginEchoesTheNameButNotThePassword() throws {
        let steps = #"[["User name: ", "sam"], ["Password: ", "sam"], ["Remember me? [y/N] ", "y"]]"#
        let run = try onTerminal(steps, ["request", url("protected"), "--mobilefirst"])
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderrText)
        let shown = run.stdoutText
        XCTAssertTrue(shown.contains("User name: sam"), shown)
        XCTAssertFalse(shown.contains("Password: sam"), "the password was echoed: \(shown)")
        XCTAssertTrue(shown.contains(#""user":"sam""#), shown)
    }

    /// Runs `coffer arguments…` on a pseudo-terminal, answering its prompts as `steps` says (Fixtures/answer_on_terminal.py).
    private func onTerminal(_ steps: String, _ arguments: [String]) throws -> ChildProcess.Output {
        guard let python = ["/usr/bin/python3", "python3"].first(where: { (try? ChildProcess.run($0, ["-c", "import pty"], timeout: .seconds(20)))?.status == 0 }) else {
            throw MissingPrerequisite.error("python3 is missing: run scripts/bootstrap.sh test")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/answer_on_terminal.py")
        return try ChildProcess.run(python, [script.path, steps, CofferCLI.executable] + arguments, environment: cli.environment, timeout: .seconds(60))
    }
}
