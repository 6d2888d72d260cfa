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
    private func run(_ mode: String, prompter: String?) throws -> [String: Any] {
        let fixture = try ProviderFixture(prompter: prompter)
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("prompt_client.py").path, mode])
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
