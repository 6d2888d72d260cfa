import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The program a vault records as the owner of an item this process creates in-process.
final class CurrentProgramTests: XCTestCase {
    /// This process is its executable's real path; the test runner's build is a file the user can
    /// modify, so its SHA-256 is recorded and pinned (docs/security.md), and it is no interpreter.
    func testTheCurrentProgramIsThisExecutableWithItsPinnedDigest() throws {
        let current = try XCTUnwrap(Program.current())
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        XCTAssertEqual(current.executablePath, Array(path.utf8))
        XCTAssertTrue(PinRule.userCanModify(Array(path.utf8), uid: geteuid()), "the build belongs to the user running the tests")
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(current.executableDigest, SHA256Hasher.digest(Array(file)))
        XCTAssertTrue(current.executablePinned)
        XCTAssertNil(current.script)
    }
}
