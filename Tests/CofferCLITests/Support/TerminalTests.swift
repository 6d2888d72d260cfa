import CofferTestSupport
import Foundation
import XCTest

/// A hidden prompt never leaves the terminal's echo off: Ctrl-C, SIGTERM, SIGHUP and Ctrl-Z
/// restore it, the signal then does what it would have done, and after Ctrl-Z and `fg` the
/// prompt hides the typing again. Run on a real pseudo-terminal (Fixtures/signal_at_prompt.py).
final class TerminalTests: CLITestCase {
    struct Report: Decodable {
        let echo_at_prompt: Bool?
        let echo_after: Bool?
        let echo_stopped: Bool?
        let echo_continued: Bool?
        let outcome: String
    }

    private func signalAtPrompt(_ signal: String) throws -> Report {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signal_at_prompt.py")
        let outcome = try ChildProcess.run(
            "/usr/bin/python3", [script.path, "Passphrase: ", signal, passphrase, BuiltProducts.executable("coffer").path, "get", "s", "a"],
            environment: ["COFFER_VAULT": vault.path, "COFFER_PASSPHRASE": nil, "COFFER_KEYFILE": nil, "COFFER_UNLOCK": nil],
            timeout: .seconds(90))
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        return try JSONDecoder().decode(Report.self, from: outcome.stdout)
    }

    override func setUpWithError() throws {
        // ThreadSanitizer runs signal handlers deferred, with every signal blocked, so the
        // handler's re-raise never ends or stops the process: these tests cannot run under it.
        // They run in the normal suite and under AddressSanitizer.
        try XCTSkipIf(TestTiming.sanitizer == "thread", "signal handling cannot be tested under ThreadSanitizer")
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
    }

    /// Ctrl-C at the prompt (before the fix, echo stayed off afterwards).
    func testCtrlCRestoresEcho() throws {
        let report = try signalAtPrompt("INT")
        XCTAssertEqual(report.echo_at_prompt, false)
        XCTAssertEqual(report.echo_after, true)
        XCTAssertEqual(report.outcome, "signal \(SIGINT)")
    }

    func testSIGTERMAndSIGHUPRestoreEcho() throws {
        for (name, number) in [("TERM", SIGTERM), ("HUP", SIGHUP)] {
            let report = try signalAtPrompt(name)
            XCTAssertEqual(report.echo_at_prompt, false, name)
            XCTAssertEqual(report.echo_after, true, name)
            XCTAssertEqual(report.outcome, "signal \(number)", name)
        }
    }

    /// Ctrl-Z restores echo while stopped; `fg` hides it again and the prompt carries on.
    func testCtrlZRestoresEchoAndContinuingHidesItAgain() throws {
        let report = try signalAtPrompt("TSTP")
        XCTAssertEqual(report.echo_at_prompt, false)
        XCTAssertEqual(report.echo_stopped, true)
        XCTAssertEqual(report.echo_continued, false)
        XCTAssertEqual(report.echo_after, true)
        XCTAssertEqual(report.outcome, "exit 0")
    }
}
