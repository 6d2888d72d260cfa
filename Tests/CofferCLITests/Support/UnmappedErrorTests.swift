import CofferCommandLine
import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// An error that no table maps (here NIO's bind error, from `coffer dev-backend` on a port
/// another server holds) ends the process with the catch-all status 70 and one line on stderr
/// that names it, with no usage hint and none of the command's secrets.
final class UnmappedErrorTests: CLITestCase {
    func testAnErrorNoTableMapsExits70WithOneLine() async throws {
        let holder = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
        let port = try XCTUnwrap(holder.baseURL.port)
        let run = try coffer(["dev-backend", "--port", "\(port)", "--user", "ada:dev-backend-secret-password"])
        await holder.stop()
        XCTAssertEqual(run.exitStatus, .software, run.stderrText)
        XCTAssertTrue(run.stderrText.hasPrefix("coffer: "), run.stderrText)
        XCTAssertTrue(run.stderrText.contains("Address already in use"), run.stderrText)
        XCTAssertEqual(run.stderrText.filter { $0 == "\n" }.count, 1, "one line: \(run.stderrText)")
        XCTAssertFalse(run.stderrText.contains("help"), "not a usage error: \(run.stderrText)")
        XCTAssertFalse(run.stderrText.contains("dev-backend-secret-password") || run.stdoutText.contains("dev-backend-secret-password"))
    }
}
