import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// Where run-time files go (the agent's socket, refresh locks): never a predictable name in a
/// folder others can write to, and only a private folder in safe folders.
final class RuntimeFolderTests: XCTestCase {
    let folder = TemporaryFolder()

    private func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    func testTheRuntimeDirectoryComesFirst() throws {
        let runtime = folder.file("runtime").path
        XCTAssertEqual(mkdir(runtime, 0o700), 0)
        XCTAssertEqual(try RuntimeFolder.url(environment: ["XDG_RUNTIME_DIR": runtime, "HOME": folder.url.path]).path, runtime + "/coffer")
        XCTAssertEqual(try mode(runtime + "/coffer"), 0o700)
    }

    /// Without $XDG_RUNTIME_DIR: `coffer/run` in $XDG_STATE_HOME, else in ~/.local/state; every
    /// folder made on the way is 0700. Before, this was /tmp/coffer-<uid>, which any user could
    /// create first.
    func testWithoutARuntimeDirectoryTheUsersStateFolderIsUsed() throws {
        let state = folder.file("state").path
        XCTAssertEqual(try RuntimeFolder.url(environment: ["XDG_STATE_HOME": state, "HOME": folder.url.path]).path, state + "/coffer/run")
        for path in [state, state + "/coffer", state + "/coffer/run"] { XCTAssertEqual(try mode(path), 0o700, path) }

        let home = folder.file("home").path
        XCTAssertEqual(mkdir(home, 0o700), 0)
        XCTAssertEqual(try RuntimeFolder.url(environment: ["HOME": home, "XDG_STATE_HOME": "relative/ignored"]).path, home + "/.local/state/coffer/run")
        for path in [home + "/.local", home + "/.local/state", home + "/.local/state/coffer/run"] { XCTAssertEqual(try mode(path), 0o700, path) }
    }

    /// A home folder that does not exist is not created (it may be /nonexistent): a clear error.
    func testAMissingHomeIsAClearError() throws {
        let missing = folder.file("missing").path
        XCTAssertThrowsError(try RuntimeFolder.url(environment: ["HOME": missing])) { error in
            XCTAssertEqual(error as? CofferError, .storageUnavailable(
                reason: "no folder for run-time files: the home folder \(missing) does not exist; set $XDG_RUNTIME_DIR or $XDG_STATE_HOME"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    /// The private folder must be the user's and 0700, and the folders above it the user's or
    /// root's and closed to writers (or sticky, as /tmp is): else another user could move it aside.
    func testAFolderOthersCouldEnterOrMoveIsRefused() throws {
        let open = folder.file("open").path
        XCTAssertEqual(mkdir(open, 0o700), 0)
        chmod(open, 0o755)
        XCTAssertThrowsError(try RuntimeFolder.privateFolder(at: open)) { error in
            XCTAssertEqual(error as? CofferError, .insecurePermissions(path: open, reason: "mode 755 lets others in; expected 700"))
        }
        let writable = folder.file("writable").path
        XCTAssertEqual(mkdir(writable, 0o700), 0)
        chmod(writable, 0o777)
        XCTAssertThrowsError(try RuntimeFolder.privateFolder(at: writable + "/run")) { error in
            XCTAssertEqual(error as? CofferError, .insecurePermissions(path: writable, reason: "writable by others"))
        }
        let sticky = folder.file("sticky").path
        XCTAssertEqual(mkdir(sticky, 0o700), 0)
        chmod(sticky, 0o1777)
        XCTAssertNoThrow(try RuntimeFolder.privateFolder(at: sticky + "/run"), "a sticky folder, as /tmp is, is safe above it")
    }
}
