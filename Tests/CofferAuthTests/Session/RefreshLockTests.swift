import CofferTestSupport
@testable import CofferAuth
import Foundation
import XCTest

/// The refresh lock excludes every other holder, in this process or another: `flock` locks
/// belong to the open file, and a released descriptor is kept for one later holder at a time.
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

    /// A descriptor kept from an earlier hold, whose file has since been removed, is not
    /// trusted: the lock is taken on the file the path names now, so another process locking
    /// that path waits (before, the kept descriptor locked the removed file alone).
    func testAKeptDescriptorOfARemovedFileLocksTheFileThePathNamesNow() async throws {
        let first = try await RefreshLock.acquire(name: "removed", folder: folder.url, timeout: .seconds(1))
        first.release()
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder.url.path).first)
        try FileManager.default.removeItem(at: folder.file(name))
        let held = try await RefreshLock.acquire(name: "removed", folder: folder.url, timeout: .seconds(1))
        let other = open(folder.file(name).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(other, 0)
        defer { close(other) }
        XCTAssertEqual(flock(other, LOCK_EX | LOCK_NB), -1, "the path's file must be the one locked")
        XCTAssertEqual(errno, EWOULDBLOCK)
        held.release()
        XCTAssertEqual(flock(other, LOCK_EX | LOCK_NB), 0, "released")
    }

    /// Holders in one process take turns on one kept descriptor at a time, never share it.
    func testHoldersInOneProcessNeverShareAKeptDescriptor() async throws {
        for _ in 0..<3 {
            let held = try await RefreshLock.acquire(name: "turns", folder: folder.url, timeout: .seconds(1))
            do {
                _ = try await RefreshLock.acquire(name: "turns", folder: folder.url, timeout: .milliseconds(50))
                XCTFail("a second holder must wait")
            } catch {
                XCTAssertEqual(error, .timeout)
            }
            held.release()
        }
    }
}
