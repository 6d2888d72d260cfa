import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// The `--prompter` command as a process (docs/security.md, "Child processes"): it runs in a
/// process group of its own, and `Dismiss`, its time limit and its client leaving the bus end
/// the whole group, whatever the command started; it gets descriptors 0, 1 and 2 only, and the
/// allow-listed environment, never a `COFFER_*` secret. A jeepney client drives the prompts
/// (Fixtures/prompt_client.py).
final class PrompterCommandTests: XCTestCase {
    private let folder = TemporaryFolder()
    /// On the command line of every process a prompter below starts, so /proc finds them.
    private let marker = "coffer-prompter-test-\(UUID().uuidString)"
    /// This process's, where the provider runs.
    private let inheritable = InheritableState()

    override func tearDown() {
        for pid in ProcessTable.processes(withCommandLineContaining: marker) { kill(pid, SIGKILL) }
        inheritable.restore()
        super.tearDown()
    }

    /// A prompter that starts a long-lived grandchild (a shell running `sleep 300`), writes a
    /// line to `started`, and waits: it never answers by itself.
    private func lingeringPrompter(started: URL) -> String {
        "sh -c 'sleep 300; : \(marker)' & echo started >> '\(started.path)'; wait"
    }

    private func client(_ fixture: ProviderFixture, _ arguments: [String]) throws -> [String: Any] {
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("prompt_client.py").path] + arguments)
        XCTAssertEqual(output.status, 0, output.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
    }

    private func assertNoPrompterLeft(_ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let left = ProcessTable.waitUntilGone(commandLineContaining: marker, timeout: .seconds(5))
        XCTAssertEqual(left.count, 0, "\(message): \(left.count) prompter processes left, such as \(left.prefix(3).map(ProcessTable.commandLine(of:)))", file: file, line: line)
    }

    /// 100 rounds of `Prompt` then `Dismiss`, each once the prompter has started its grandchild,
    /// leave no prompter process (a regression: `Dismiss` ended only `/bin/sh`, and every
    /// round left its grandchild running).
    func testDismissEndsThePrompterAndEverythingItStarted() throws {
        let started = folder.file("started")
        let fixture = try ProviderFixture(prompter: lingeringPrompter(started: started), unlocked: false)
        let report = try client(fixture, ["dismiss-running", "100", started.path])
        XCTAssertEqual(report["rounds"] as? Int, 100)
        XCTAssertEqual(report["all_dismissed"] as? Bool, true)
        XCTAssertEqual(report["locked_after"] as? Bool, true)
        assertNoPrompterLeft("after 100 dismissed prompts")
    }

    /// A prompter still running at its time limit is ended with everything it started, and
    /// the prompt completes dismissed.
    func testATimedOutPrompterEndsWithEverythingItStarted() throws {
        let fixture = try ProviderFixture(prompter: lingeringPrompter(started: folder.file("started")), prompterTimeout: .seconds(1), unlocked: false)
        let report = try client(fixture, ["login"])
        let completed = try XCTUnwrap(report["completed"] as? [String: Any])
        XCTAssertEqual(completed["dismissed"] as? Bool, true)
        XCTAssertEqual(report["locked_after"] as? Bool, true)
        assertNoPrompterLeft("after the prompter's time limit")
    }

    /// A client that leaves the bus while its prompt runs takes the prompter, and everything
    /// the prompter started, with it.
    func testAClientLeavingTheBusEndsItsPrompter() throws {
        let started = folder.file("started")
        let fixture = try ProviderFixture(prompter: lingeringPrompter(started: started), unlocked: false)
        let report = try client(fixture, ["leave", started.path])
        XCTAssertEqual(report["prompted"] as? Bool, true)
        assertNoPrompterLeft("after the client left the bus")
    }

    /// The prompter sees descriptors 0, 1 and 2 only, and neither `COFFER_PASSPHRASE` nor any
    /// other variable outside the allow-list, even when the process serving the prompt has
    /// them set and holds another descriptor open (inheritable); `PATH` is the fixed system one.
    /// It still unlocks.
    func testThePrompterGetsOnlyItsDescriptorsAndTheAllowedEnvironment() throws {
        inheritable.setVariable("COFFER_PASSPHRASE", "the agent's own passphrase")
        inheritable.setVariable("COFFER_NEW_PASSPHRASE", "another secret")
        inheritable.setVariable("COFFER_PROMPTER_TEST_VARIABLE", "not for children")
        inheritable.setVariable("UNLISTED_PROMPTER_TEST_VARIABLE", "not for children")
        inheritable.setVariable("LC_TIME", "C.UTF-8")
        inheritable.openInheritableDescriptor()
        let descriptors = folder.file("descriptors")
        let environment = folder.file("environment")
        // The prompter's shell lists its own descriptors through a child of its own (a listing
        // made by the shell itself would show the descriptors it opens for the listing).
        let prompter = "sh -c 'ls /proc/$PPID/fd > \"$0\"' '\(descriptors.path)'; env > '\(environment.path)'; printf '%s\\n' '\(ProviderFixture.loginPassphrase)'"
        let fixture = try ProviderFixture(prompter: prompter, unlocked: false)
        let report = try client(fixture, ["login"])
        XCTAssertEqual(report["locked_after"] as? Bool, false, "the prompter's passphrase unlocks")

        XCTAssertEqual(try String(contentsOf: descriptors, encoding: .utf8), "0\n1\n2\n", "descriptors 0, 1 and 2 only")
        let variables = Dictionary(
            try String(contentsOf: environment, encoding: .utf8).split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }) { first, _ in first }
        XCTAssertEqual(
            Set(variables.keys.filter { $0.hasPrefix("COFFER_") }), ["COFFER_PROMPT", "COFFER_PROMPT_KIND", "COFFER_PROMPT_TIMEOUT"],
            "no COFFER_ variable but the prompt's")
        XCTAssertEqual(variables["COFFER_PROMPT_KIND"], "passphrase")
        XCTAssertNil(variables["UNLISTED_PROMPTER_TEST_VARIABLE"], "only allow-listed variables")
        XCTAssertEqual(variables["PATH"], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "the fixed system PATH")
        XCTAssertEqual(variables["LC_TIME"], "C.UTF-8", "the locale passes")
        XCTAssertEqual(variables["DBUS_SESSION_BUS_ADDRESS"], ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], "the session bus passes")
        XCTAssertEqual(variables["COFFER_PROMPT"], "Unlock the Coffer collection Login")
    }
}
