import CofferTestSupport
import Foundation
import XCTest
@testable import CofferAgent
import Coffer

/// The pin rule: a program is pinned when its user could change the file at its path, by
/// writing it or by replacing it through a folder above it.
final class PinRuleTests: XCTestCase {
    let folder = TemporaryFolder()
    let nobody: uid_t = 65534

    func make(_ path: String, folder isFolder: Bool = false, mode: mode_t, owner: uid_t = 0) throws -> String {
        let full = folder.file(path).path
        if isFolder {
            XCTAssertEqual(mkdir(full, mode), 0)
        } else {
            XCTAssertTrue(FileManager.default.createFile(atPath: full, contents: Data("#!/bin/sh\n".utf8)))
        }
        XCTAssertEqual(chmod(full, mode), 0)
        XCTAssertEqual(chown(full, owner, 0), 0)
        return full
    }

    func pinned(_ path: String, for uid: uid_t) -> Bool {
        PinRule.userCanModify(Array(path.utf8), uid: uid)
    }

    /// Root's files in root's folders are not another user's to change; root's own are root's.
    func testSystemProgramsAreNotPinnedForOtherUsers() throws {
        _ = try make("bin", folder: true, mode: 0o755)
        let program = try make("bin/tool", mode: 0o755)
        XCTAssertFalse(pinned(program, for: nobody))
        XCTAssertTrue(pinned(program, for: 0), "root owns it")
        XCTAssertFalse(pinned("/usr/bin/env", for: nobody), "a distribution's program")
    }

    /// The user's own file, a file group or others may write, and a file in the user's own
    /// folder or in a folder anyone may write (without the sticky bit) are pinned; a sticky
    /// folder lets no one replace root's file.
    func testFilesTheUserCouldChangeArePinned() throws {
        _ = try make("mine", folder: true, mode: 0o755, owner: nobody)
        XCTAssertTrue(pinned(try make("mine/tool", mode: 0o755), for: nobody), "in the user's folder")
        _ = try make("root", folder: true, mode: 0o755)
        XCTAssertTrue(pinned(try make("root/owned", mode: 0o755, owner: nobody), for: nobody), "the user's file")
        XCTAssertTrue(pinned(try make("root/group-writable", mode: 0o775), for: nobody))
        XCTAssertTrue(pinned(try make("root/world-writable", mode: 0o757), for: nobody))
        _ = try make("open", folder: true, mode: 0o777)
        XCTAssertTrue(pinned(try make("open/tool", mode: 0o755), for: nobody), "anyone may rename it away")
        _ = try make("sticky", folder: true, mode: 0o1777)
        XCTAssertFalse(pinned(try make("sticky/tool", mode: 0o755), for: nobody), "the sticky bit keeps root's file")
        _ = try make("mine/deep", folder: true, mode: 0o755)
        _ = try make("mine/deep/er", folder: true, mode: 0o755)
        XCTAssertTrue(pinned(try make("mine/deep/er/tool", mode: 0o755), for: nobody), "a folder the user owns, two levels up")
    }

    /// A path that cannot be examined is pinned.
    func testAPathThatCannotBeExaminedIsPinned() {
        XCTAssertTrue(pinned(folder.file("missing").path, for: nobody))
        XCTAssertTrue(pinned("relative/tool", for: nobody))
    }
}
