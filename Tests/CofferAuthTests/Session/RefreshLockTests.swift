import CofferTestSupport
@testable import CofferAuth
import Foundation
import XCTest

/// The refresh lock excludes every other holder, in this process or another: each acquisition
/// opens the lock file anew, and `flock` locks belong to the open file.
final class RefreshLockTests: XCTestCase {
    let folder = TemporaryFolder()

    func testTheLockExcludesOtherHoldersUntilReleased() async throws {
        let first = try await RefreshLock.acquire(name: "session", folder: folder.url, timeout: .seconds(1))
        do {
            _ = try await RefreshLock.acquire(name: "session", folder: folder.url, timeout: .milliseconds(100))
            XCTFail("a second holder must wait")
        } catch {
            XCTAssertEqual(error, .timeout)
        }
        let other = try await RefreshLock.acquire(name: "another session", folder: folder.url, timeout: .milliseconds(100))
        other.release()
        first.release()
        let second = try await RefreshLock.acquire(name: "session", folder: folder.url, timeout: .seconds(1))
        second.release()
    }

    /// A process holding the lock (flock on the same file) keeps this one waiting.
    func testAnotherProcessHoldsTheLock() async throws {
        let first = try await RefreshLock.acquire(name: "shared", folder: folder.url, timeout: .seconds(1))
        first.release()
        let path = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder.url.path).first)
        let holder = try ChildProcess.start("/usr/bin/flock", ["--exclusive", folder.file(path).path, "sleep", "30"])
        defer { holder.kill() }
        try await Task.sleep(for: .milliseconds(300))
        do {
            _ = try await RefreshLock.acquire(name: "shared", folder: folder.url, timeout: .milliseconds(200))
            XCTFail("another process holds it")
        } catch {
            XCTAssertEqual(error, .timeout)
        }
    }
}
