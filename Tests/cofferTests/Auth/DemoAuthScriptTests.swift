import CofferTestSupport
import Foundation
import XCTest

final class DemoAuthScriptTests: XCTestCase {
    /// scripts/demo-auth.sh walks through persistent login (log in, exit, authorized without a password,
    /// expiry, renewal from the vault, logout) and checks each step itself.
    func testDemoAuthScriptSucceeds() throws {
        var environment: [String: String?] = [:]
        for name in ProcessInfo.processInfo.environment.keys where name.hasPrefix("COFFER_") {
            environment.updateValue(nil, forKey: name)
        }
        environment["COFFER_BIN"] = CofferCLI.executable
        let script = CofferCLI.repository.appendingPathComponent("scripts/demo-auth.sh").path
        let output = try ChildProcess.run("/bin/bash", [script], environment: environment, timeout: .seconds(60))
        XCTAssertEqual(output.status, 0, output.stdoutText + output.stderrText)
        XCTAssertTrue(output.stdoutText.contains("Persistent login: done"), output.stdoutText)
        XCTAssertFalse(output.stdoutText.contains("demo-password") && output.stdoutText.contains("coffer-cli-secret\n"))
    }
}
