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
        assertFailure(try coffer(["get", "s", "a"]), status: .locked, message: "wrong passphrase")
        XCTAssertEqual(try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "brand new"]).stdoutText, "v")
    }

    /// The KDF column of each passphrase slot `coffer slots` lists.
    private func passphraseCosts() throws -> [String] {
        let rows: [[Substring]] = try coffer(["slots"]).stdoutText.split(separator: "\n").map { $0.split(separator: "\t") }
        return rows.filter { $0.count > 2 && $0[1] == "passphrase" }.map { String($0[2]) }
    }

    /// After `init --kdf sensitive`, `passwd` keeps the slot SENSITIVE; before, it silently
    /// dropped to MODERATE, about 5 times cheaper to brute-force.
    func testPasswdKeepsTheSlotsCost() throws {
        XCTAssertEqual(try coffer(["init", "--kdf", "sensitive"]).status, 0)
        let changed = try coffer(["passwd"], environment: ["COFFER_NEW_PASSPHRASE": "brand new"])
        XCTAssertEqual(changed.status, 0, changed.stderrText)
        XCTAssertEqual(changed.stderrText, "")
        XCTAssertEqual(try passphraseCosts(), ["argon2id ops=4 mem=1024MiB"])
    }

    /// A new passphrase slot gets the strongest existing cost; only an explicit --kdf lowers a
    /// cost, and the command says so on stderr.
    func testOnlyAnExplicitKdfLowersTheCostAndItIsReported() throws {
        XCTAssertEqual(try coffer(["init", "--kdf", "moderate"]).status, 0)
        let added = try coffer(["slots", "add", "--add-passphrase"], environment: ["COFFER_NEW_PASSPHRASE": "second"])
        XCTAssertEqual(added.status, 0, added.stderrText)
        XCTAssertEqual(try passphraseCosts(), ["argon2id ops=3 mem=256MiB", "argon2id ops=3 mem=256MiB"])

        let lowered = try coffer(["passwd", "--kdf", "interactive"], environment: ["COFFER_NEW_PASSPHRASE": "third"])
        XCTAssertEqual(lowered.status, 0, lowered.stderrText)
        XCTAssertTrue(lowered.stderrText.hasPrefix("coffer: note: --kdf gives this passphrase a lower Argon2id cost"), lowered.stderrText)
        XCTAssertEqual(try passphraseCosts(), ["argon2id ops=2 mem=64MiB", "argon2id ops=3 mem=256MiB"])
    }

    /// After `init --kdf sensitive`, `slots add` gives the new passphrase SENSITIVE too (before,
    /// MODERATE); `slots add --kdf` lowers it only when asked, and says so.
    func testSlotsAddTakesTheStrongestCostAndReportsALowerOne() throws {
        XCTAssertEqual(try coffer(["init", "--kdf", "sensitive"]).status, 0)
        let added = try coffer(["slots", "add", "--add-passphrase"], environment: ["COFFER_NEW_PASSPHRASE": "second"])
        XCTAssertEqual(added.status, 0, added.stderrText)
        XCTAssertEqual(added.stderrText, "")
        XCTAssertEqual(try passphraseCosts(), ["argon2id ops=4 mem=1024MiB", "argon2id ops=4 mem=1024MiB"])

        // A third SENSITIVE-sized slot would pass the cap on one unlock's work; on a MODERATE
        // vault, a lower --kdf is taken and reported.
        try FileManager.default.removeItem(at: vault)
        XCTAssertEqual(try coffer(["init", "--kdf", "moderate"]).status, 0)
        let lowered = try coffer(["slots", "add", "--add-passphrase", "--kdf", "interactive"], environment: ["COFFER_NEW_PASSPHRASE": "third"])
        XCTAssertEqual(lowered.status, 0, lowered.stderrText)
        XCTAssertTrue(lowered.stderrText.hasPrefix("coffer: note: --kdf gives this passphrase a lower Argon2id cost"), lowered.stderrText)
        XCTAssertEqual(try passphraseCosts(), ["argon2id ops=3 mem=256MiB", "argon2id ops=2 mem=64MiB"])
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
        assertFailure(try coffer(["get", "s", "a"]), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["slots", "remove", "2", "--keyfile", key.path]), status: .usage,
                      message: "invalid argument: cannot remove the last key slot")
    }

    /// `slots add` takes exactly one kind of slot, and names each kind's option when it is not given one.
    func testSlotsAddTakesExactlyOneKind() throws {
        try initVault()
        let message = "give exactly one of --add-keyfile, --add-passphrase, --add-secret-service or --add-systemd-creds"
        for arguments in [[], ["--add-passphrase", "--add-secret-service"]] {
            let refused = try coffer(["slots", "add"] + arguments)
            XCTAssertEqual(refused.exitStatus, .usage, refused.stderrText)
            XCTAssertTrue(refused.stderrText.contains(message), refused.stderrText)
        }
        XCTAssertEqual(try coffer(["slots"]).stdoutText.split(separator: "\n").count, 1, "nothing was added")
    }

    /// `rotate-key` with every slot's credential re-keys the vault; items stay readable by both.
    func testRotateKey() throws {
        try initVault()
        let key = folder.file("k.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key.path]).status, 0)
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        assertFailure(try coffer(["rotate-key"]), status: .usage,
                      message: "invalid argument: key slot 2 (keyfile) is not opened by any credential given")
        XCTAssertEqual(try coffer(["rotate-key", "--also-keyfile", key.path]).status, 0)
        XCTAssertEqual(try coffer(["get", "s", "a"]).stdoutText, "v")
        XCTAssertEqual(try coffer(["get", "s", "a", "--keyfile", key.path]).stdoutText, "v")
    }
}
