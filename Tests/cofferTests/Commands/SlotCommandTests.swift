import CofferTestSupport
import Foundation
import XCTest

final class SlotCommandTests: CLITestCase {
    /// `passwd` changes the passphrase: the new one opens the vault and the old one fails.
    func testPasswd() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        let changed = try coffer(["passwd", "--kdf", "interactive"], environment: ["COFFER_NEW_PASSPHRASE": "brand new"])
        XCTAssertEqual(changed.status, 0, changed.stderrText)
        assertFailure(try coffer(["get", "s", "a"]), status: 2, message: "wrong passphrase")
        XCTAssertEqual(try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "brand new"]).stdoutText, "v")
    }

    /// `slots` lists, `slots add --add-keyfile` adds a key file that opens the vault, `slots remove`
    /// removes a slot, and the last slot cannot be removed.
    func testSlots() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        let key = folder.file("added.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key.path]).status, 0)
        let listed = try coffer(["slots"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(listed.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") },
                       ["1 passphrase", "2 keyfile"])
        XCTAssertEqual(try coffer(["get", "s", "a", "--keyfile", key.path], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "v")

        XCTAssertEqual(try coffer(["slots", "remove", "1", "--keyfile", key.path]).status, 0)
        assertFailure(try coffer(["get", "s", "a"]), status: 2, message: "wrong passphrase")
        assertFailure(try coffer(["slots", "remove", "2", "--keyfile", key.path]), status: 64,
                      message: "invalid argument: cannot remove the last key slot")
    }

    /// `rotate-key` with every slot's credential re-keys the vault; items stay readable by both.
    func testRotateKey() throws {
        try initVault()
        let key = folder.file("k.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key.path]).status, 0)
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        assertFailure(try coffer(["rotate-key"]), status: 64,
                      message: "invalid argument: key slot 2 (keyfile) is not opened by any credential given")
        XCTAssertEqual(try coffer(["rotate-key", "--also-keyfile", key.path]).status, 0)
        XCTAssertEqual(try coffer(["get", "s", "a"]).stdoutText, "v")
        XCTAssertEqual(try coffer(["get", "s", "a", "--keyfile", key.path]).stdoutText, "v")
    }
}
