import CofferTestSupport
import Foundation
import XCTest

/// Test folders are removed when their test ends, not when the process exits (XCTest keeps every
/// test case, and so every stored folder, alive until then).
final class TemporaryFolderTests: XCTestCase {
    /// A folder made during a test is gone once the test ends; one made outside a test (a class
    /// setUp) lasts until its suite ends.
    func testAFolderGoesWhenItsTestEndsAndAClassFolderWhenItsSuiteEnds() {
        let sweeper = TemporaryFolderSweeper()
        let classFolder = TemporaryFolder(sweeper: sweeper)
        let made = classFolder.url
        sweeper.testCaseWillStart(self)
        let testFolder = TemporaryFolder(sweeper: sweeper)
        XCTAssertTrue(FileManager.default.createFile(atPath: testFolder.file("vault").path, contents: Data("x".utf8)))
        sweeper.testCaseDidFinish(self)

        XCTAssertFalse(FileManager.default.fileExists(atPath: testFolder.url.path), "the test's folder outlived its test")
        XCTAssertTrue(FileManager.default.fileExists(atPath: made.path), "the class's folder went before its suite ended")
        sweeper.testSuiteDidFinish(XCTestSuite(name: "TemporaryFolderTests"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: made.path), "the class's folder outlived its suite")
    }

    /// The folder is made at first use, private (0700), and named coffer-test-*.
    func testTheFolderIsMadeAtFirstUseAndIsPrivate() throws {
        let folder = TemporaryFolder()
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertTrue(folder.url.lastPathComponent.hasPrefix("coffer-test-"))
    }
}
