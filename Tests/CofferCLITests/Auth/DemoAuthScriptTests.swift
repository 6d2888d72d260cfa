import CofferTestSupport
import Foundation
import XCTest

final class DemoAuthScriptTests: XCTestCase {
    /// Every process the script starts inherits this variable, so the test can find them.
    private let marker = "COFFER_TEST_PROCESS_MARK"
    private let mark = UUID().uuidString

    private var environment: [String: String?] {
        var environment: [String: String?] = [:]
        for name in ProcessInfo.processInfo.environment.keys where name.hasPrefix("COFFER_") {
            environment.updateValue(nil, forKey: name)
        }
        environment["COFFER_BIN"] = CofferCLI.executable
        environment[marker] = mark
        return environment
    }

    private var script: String { CofferCLI.repository.appendingPathComponent("scripts/demo-auth.sh").path }

    /// scripts/demo-auth.sh walks through persistent login (log in, exit, authorized without a password,
    /// expiry, renewal from the vault, logout) and checks each step itself; when it ends, no
    /// process it started (the dev backend) is still alive.
    func testDemoAuthScriptSucceedsAndLeavesNoProcess() throws {
        let output = try ChildProcess.run("/bin/bash", [script], environment: environment, timeout: .seconds(60))
        XCTAssertEqual(output.status, 0, output.stdoutText + output.stderrText)
        XCTAssertTrue(output.stdoutText.contains("Persistent login: done"), output.stdoutText)
        XCTAssertFalse(output.stdoutText.contains("demo-password") && output.stdoutText.contains("coffer-cli-secret\n"))
        assertNoProcessLeft()
    }

    /// Ctrl-C in the middle of the demo (SIGINT to its process group, as a terminal sends it)
    /// stops the demo and the dev backend it started, although background jobs ignore SIGINT.
    func testInterruptedDemoLeavesNoProcess() throws {
        try assertStoppedDemoLeavesNoProcess("SIGINT to the group") { $0.killGroup(SIGINT) }
    }

    /// SIGTERM or SIGHUP to the script alone (as `kill` or a closed terminal sends them): its
    /// trap stops the dev backend, which got no signal itself.
    func testTerminatedOrHungUpDemoLeavesNoProcess() throws {
        try assertStoppedDemoLeavesNoProcess("SIGTERM to the script") { $0.kill(SIGTERM) }
        try assertStoppedDemoLeavesNoProcess("SIGHUP to the script") { $0.kill(SIGHUP) }
    }

    /// Starts the demo, waits until its dev backend runs, stops the demo with `stop`, and checks
    /// that it reports failure and leaves no process behind.
    private func assertStoppedDemoLeavesNoProcess(_ how: String, stop: (ChildProcess) -> Void) throws {
        let demo = try ChildProcess.start("/bin/bash", [script], environment: environment, newProcessGroup: true)
        XCTAssertTrue(waitForDevBackend(timeout: .seconds(30)), "\(how): the demo did not start its dev backend")
        stop(demo)
        let output = try demo.wait(timeout: .seconds(30))
        XCTAssertNotEqual(output.status, 0, "\(how): a stopped demo does not report success")
        assertNoProcessLeft()
    }

    /// A demo that fails half-way (here its `coffer login` fails) still stops its dev backend.
    func testFailedDemoLeavesNoProcess() throws {
        let folder = TemporaryFolder()
        let wrapper = folder.file("coffer")
        try """
            #!/bin/sh
            [ "$1" = login ] && { echo "login refused by the test" >&2; exit 1; }
            exec '\(CofferCLI.executable)' "$@"
            """.write(to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o700)
        var environment = self.environment
        environment["COFFER_BIN"] = wrapper.path
        let output = try ChildProcess.run("/bin/bash", [script], environment: environment, timeout: .seconds(60))
        XCTAssertNotEqual(output.status, 0, "the demo must fail when login fails")
        XCTAssertTrue(output.stderrText.contains("login refused by the test"), output.stderrText)
        assertNoProcessLeft()
    }

    private func waitForDevBackend(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let running = ProcessTable.processes(withEnvironment: marker, equalTo: mark)
            if running.contains(where: { ProcessTable.commandLine(of: $0).contains("dev-backend") }) { return true }
            usleep(20_000)
        }
        return false
    }

    private func assertNoProcessLeft(file: StaticString = #filePath, line: UInt = #line) {
        let left = ProcessTable.waitUntilGone(environment: marker, equalTo: mark, timeout: .seconds(5))
        XCTAssertEqual(left, [], "left running: \(left.map(ProcessTable.commandLine(of:)))", file: file, line: line)
        for pid in left { kill(pid, SIGKILL) }
    }
}
