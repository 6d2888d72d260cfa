import AuthTestSupport
import Foundation
import XCTest

final class DemoAuthScriptTests: XCTestCase {
    /// scripts/demo-auth.sh walks through persistent login (log in, exit, authorized without a password,
    /// expiry, renewal from the vault, logout) and checks each step itself.
    func testDemoAuthScriptSucceeds() throws {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("COFFER_") }
        environment["COFFER_BIN"] = CofferCLI.executable
        let script = CofferCLI.repository.appendingPathComponent("scripts/demo-auth.sh").path
        let output = try ChildProcess.run("/bin/bash", [script], environment: environment, timeout: .seconds(60))
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("Persistent login: done"), output.stdout)
        XCTAssertFalse(output.stdout.contains("demo-password") && output.stdout.contains("coffer-cli-secret\n"))
    }
}
