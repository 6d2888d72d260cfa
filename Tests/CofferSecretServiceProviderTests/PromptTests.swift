import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// Unlocking with no person there (docs/secret-service.md, "Unlocking"): `Unlock` on a locked
/// collection returns a prompt, whose `Prompt` runs the `--prompter` command; no prompter, a
/// failing one, a wrong passphrase three times or `Dismiss` complete it dismissed, at once, and
/// the collection stays locked. A jeepney client drives it (Fixtures/prompt_client.py).
final class PromptTests: XCTestCase {
    private func run(_ mode: String, _ arguments: [String] = [], prompter: String?) throws -> [String: Any] {
        let fixture = try ProviderFixture(prompter: prompter)
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("prompt_client.py").path, mode] + arguments)
        XCTAssertEqual(output.status, 0, output.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
    }

    /// The `Completed` signal's arguments from a report.
    private func completed(_ report: [String: Any]) throws -> (dismissed: Bool?, result: [String]?) {
        let completed = try XCTUnwrap(report["completed"] as? [String: Any])
        return (completed["dismissed"] as? Bool, completed["result"] as? [String])
    }

    private var rightPassphrase: String { "printf '%s\\n' '\(ProviderFixture.loginPassphrase)'" }

    /// The prompter's passphrase unlocks the login collection: `Completed(false, [login])`.
    func testThePrompterUnlocks() throws {
        let report = try run("login", prompter: rightPassphrase)
        XCTAssertEqual(report["locked_before"] as? Bool, true)
        let answer = try XCTUnwrap(report["unlock_answer"] as? [String: Any])
        XCTAssertEqual(answer["unlocked"] as? [String], [])
        XCTAssertEqual(answer["prompted"] as? Bool, true)
        let (dismissed, result) = try completed(report)
        XCTAssertEqual(dismissed, false)
        XCTAssertEqual(result, ["/org/freedesktop/secrets/collection/login"])
        XCTAssertEqual(report["locked_after"] as? Bool, false)
    }

    /// One prompter at a time: four clients each `Unlock` the locked login collection and
    /// `Prompt` before any prompt completes. The prompts wait their turn, so no two prompters
    /// ever run together, and the prompter runs once: the prompts after the first find the
    /// collection unlocked and complete without asking. Every prompt completes undismissed with
    /// the login collection. (A regression: each `Prompt` started its own prompter at once, so
    /// the user was asked four times, with four dialogs open together.)
    func testPromptsTakeTurnsAndSkipWhatIsAlreadyUnlocked() throws {
        let folder = TemporaryFolder()
        let runs = folder.file("runs"), overlaps = folder.file("overlaps"), busy = folder.file("busy")
        let prompter = """
            mkdir '\(busy.path)' 2>/dev/null || printf x >> '\(overlaps.path)'; printf x >> '\(runs.path)'; \
            sleep 0.3; rmdir '\(busy.path)' 2>/dev/null; \(rightPassphrase)
            """
        let report = try run("concurrent", ["4"], prompter: prompter)
        let completed = try XCTUnwrap(report["completed"] as? [[String: Any]])
        XCTAssertEqual(completed.count, 4)
        for outcome in completed {
            XCTAssertEqual(outcome["dismissed"] as? Bool, false)
            XCTAssertEqual(outcome["result"] as? [String], ["/org/freedesktop/secrets/collection/login"])
        }
        XCTAssertEqual((try? Data(contentsOf: runs))?.count, 1, "the prompter ran once")
        XCTAssertNil(try? Data(contentsOf: overlaps), "no two prompters ran together")
        XCTAssertEqual(report["locked_after"] as? Bool, false)
    }

    /// A created collection whose login collection is locked: the prompt asks for the login
    /// passphrase, and both unlock (a regression: the prompt completed undismissed and the
    /// created collection stayed locked).
    func testACreatedCollectionUnlocksThroughTheLoginPassphrase() throws {
        let report = try run("created", prompter: rightPassphrase)
        let target = try XCTUnwrap(report["target"] as? String)
        XCTAssertEqual(report["locked_before"] as? Bool, true, "locking the login collection locks the created one")
        let (dismissed, result) = try completed(report)
        XCTAssertEqual(dismissed, false)
        XCTAssertTrue(result?.contains(target) == true, "\(String(describing: result))")
        XCTAssertEqual(report["locked_after"] as? Bool, false)
    }

    /// With no prompter, a prompter that fails, or one that gives a wrong passphrase every time,
    /// the prompt completes dismissed and the collection stays locked; so does `Dismiss`.
    func testNoPassphraseMeansDismissed() throws {
        for (mode, prompter) in [("login", nil), ("login", "exit 1"), ("login", "echo wrong"), ("dismiss", rightPassphrase)] as [(String, String?)] {
            let report = try run(mode, prompter: prompter)
            let (dismissed, result) = try completed(report)
            XCTAssertEqual(dismissed, true, "\(mode) \(prompter ?? "none")")
            XCTAssertEqual(result, [], "\(mode) \(prompter ?? "none")")
            XCTAssertEqual(report["locked_after"] as? Bool, true, "\(mode) \(prompter ?? "none")")
        }
    }
}
