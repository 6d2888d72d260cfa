import XCTest
@testable import Coffer

/// An item's owner and access list: the list is kept sorted by encoding, one entry per program.
final class ItemAccessTests: XCTestCase {
    let git = Program(executable: "/usr/bin/git")
    let python = Program(executable: "/usr/bin/python3", script: "/home/ada/sync.py")

    /// The list comes out sorted by the programs' encodings, each once, whatever the order given.
    func testListIsSortedAndUnique() {
        let access = ItemAccess(owner: git, allowed: [python, git, python])
        XCTAssertEqual(access.allowed.map(\.encoded), [git, python].map(\.encoded).sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertEqual(access.allowed.count, 2)
        XCTAssertEqual(access.owner, git)
    }

    /// Inserting a program replaces its entry with other pins; inserting it again changes
    /// nothing; removing it removes every entry for it, whatever their pins.
    func testInsertAndRemove() {
        var access = ItemAccess()
        XCTAssertTrue(access.insert(python))
        XCTAssertFalse(access.insert(python))
        let pinned = Program(executable: python.executable, executableDigest: [UInt8](repeating: 7, count: 32), executablePinned: true, script: "/home/ada/sync.py")
        XCTAssertTrue(access.insert(pinned))
        XCTAssertEqual(access.allowed, [pinned])
        XCTAssertTrue(access.insert(git))
        XCTAssertEqual(access.remove(python), 1)
        XCTAssertEqual(access.allowed, [git])
        XCTAssertEqual(access.remove(python), 0)
    }
}
