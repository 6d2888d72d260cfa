import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

final class ItemCommandTests: CLITestCase {
    /// `set` reads the secret from stdin and `get` writes exactly those bytes to stdout, binary included.
    func testSetAndGetAreExact() throws {
        try initVault()
        let binary = Data([0, 10, 13, 255, 0x80, 10])
        XCTAssertEqual(try coffer(["set", "svc", "bin"], stdin: binary).status, 0)
        XCTAssertEqual(try coffer(["get", "svc", "bin"]).stdout, binary)
        XCTAssertEqual(try coffer(["set", "svc", "text"], stdin: Data("pässwörd\n".utf8)).status, 0)
        XCTAssertEqual(try coffer(["get", "svc", "text"]).stdout, Data("pässwörd\n".utf8))
    }

    /// `list` prints class, service, account and label per line, never the secret; `--json` gives
    /// the metadata; `--service` filters.
    func testList() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ann", "--label", "Ann's mail", "--attribute", "tier=gold"], stdin: Data("SECRET1".utf8)).status, 0)
        XCTAssertEqual(try coffer(["set", "chat", "bob", "--expires-in", "3600"], stdin: Data("SECRET2".utf8)).status, 0)
        XCTAssertEqual(try coffer(["set", "--internet", "api.example.com", "svc"], stdin: Data("SECRET3".utf8)).status, 0)

        let text = try coffer(["list"])
        XCTAssertEqual(text.stdoutText, "generic\tchat\tbob\t\ngeneric\tmail\tann\tAnn's mail\ninternet\tapi.example.com\tsvc\t\n")
        XCTAssertEqual(try coffer(["list", "--service", "mail"]).stdoutText, "generic\tmail\tann\tAnn's mail\n")

        let json = try coffer(["list", "--json"])
        XCTAssertFalse(json.stdoutText.contains("SECRET"))
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        XCTAssertEqual(entries.count, 3)
        XCTAssertEqual(entries[1]["attributes"] as? [String: String], ["tier": "gold"])
        XCTAssertNotNil(entries[0]["expiresAt"] as? String)
        XCTAssertEqual(entries[2]["class"] as? String, "internetPassword")
    }

    /// `delete` removes an item; `get` and `delete` of a missing item exit 1 with one line.
    func testDeleteAndNotFound() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        XCTAssertEqual(try coffer(["delete", "s", "a"]).status, 0)
        assertFailure(try coffer(["get", "s", "a"]), status: .notFound, message: "item not found")
        assertFailure(try coffer(["delete", "s", "a"]), status: .notFound, message: "item not found")
    }

    /// A wrong passphrase exits 2 with one line that does not echo the passphrase.
    func testWrongPassphrase() throws {
        try initVault()
        let outcome = try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "hunter2-wrong"])
        assertFailure(outcome, status: .locked, message: "wrong passphrase")
        XCTAssertFalse(outcome.stdoutText.contains("hunter2") || outcome.stderrText.contains("hunter2"))
    }

    /// A tampered record exits 3 on `get`, and `list` warns about it on stderr.
    func testIntegrityFailure() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        XCTAssertEqual(try coffer(["set", "s", "b"], stdin: Data("w".utf8)).status, 0)
        // Flip a byte in one record with the sqlite3 tool, as an attacker with the file would.
        let flip = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); k,r=d.execute('select row_key, record from items order by row_key limit 1').fetchone(); r=bytearray(r); r[30]^=1; d.execute('update items set record=? where row_key=?',(bytes(r),k)); d.commit()", vault.path])
        XCTAssertEqual(flip.status, 0, flip.stderrText)
        let statuses = [try coffer(["get", "s", "a"]).exitStatus, try coffer(["get", "s", "b"]).exitStatus]
        XCTAssertEqual(Set(statuses), [.ok, .integrityFailure])
        let list = try coffer(["list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(list.stderrText, "coffer: warning: 1 record(s) failed the integrity check and are not listed; run 'coffer check'\n")
    }

    /// An expiry too far away to store is an invalid argument (exit 64), never a crash: before,
    /// 10^16 s, Int64.max and -Int64.max all crashed the process.
    func testFarExpiryIsAnInvalidArgument() throws {
        try initVault()
        for seconds in ["10000000000000000", "9223372036854775807", "0"] {
            assertFailure(try coffer(["set", "s", "a", "--expires-in", seconds], stdin: Data("x".utf8)), status: .usage,
                          message: "invalid argument: --expires-in takes 1 to 1000000000000 seconds")
        }
        let negative = try coffer(["set", "s", "a", "--expires-in=-9223372036854775807"], stdin: Data("x".utf8))
        XCTAssertEqual(negative.exitStatus, .usage, negative.stderrText)
        XCTAssertEqual(try coffer(["set", "s", "a", "--expires-in", "1000000000000"], stdin: Data("x".utf8)).status, 0)
    }

    /// A name cannot forge a line in `list`: newline, tab, carriage return, ESC, the other C0
    /// and C1 controls, DEL, bidi overrides and backslashes are escaped visibly, so each item is
    /// one line; `--json` keeps the exact names.
    func testListEscapesControlCharactersInNames() throws {
        try initVault()
        let forged = "evil\ngeneric\tbank.example\tadmin"
        let names = [forged, "cr\rx", "esc\u{1B}[31mred", "soh\u{1}bell\u{7}del\u{7F}", "c1\u{85}\u{9B}", "bidi\u{202E}txt", "back\\slash\\n"]
        for name in names {
            XCTAssertEqual(try coffer(["set", name, "acct"], stdin: Data("v".utf8)).status, 0, name)
        }
        let list = try coffer(["list"])
        let lines = list.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, names.count, list.stdoutText)
        XCTAssertFalse(list.stdoutText.contains("\u{1B}") || list.stdoutText.contains("\r") || list.stdoutText.contains("\u{202E}"))
        for expected in [
            "generic\tevil\\ngeneric\\tbank.example\\tadmin\tacct\t", "generic\tcr\\rx\tacct\t",
            "generic\tesc\\x1b[31mred\tacct\t", "generic\tsoh\\x01bell\\x07del\\x7f\tacct\t",
            "generic\tc1\\u{0085}\\u{009b}\tacct\t", "generic\tbidi\\u{202e}txt\tacct\t",
            "generic\tback\\\\slash\\\\n\tacct\t",
        ] {
            XCTAssertTrue(lines.contains(Substring(expected)), "missing line \(expected) in \(list.stdoutText)")
        }
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: try coffer(["list", "--json"]).stdout) as? [[String: Any]])
        XCTAssertEqual(Set(json.compactMap { $0["service"] as? String }), Set(names))
    }

    /// Errors and messages escape the names and paths they print as `list` does, so a path
    /// cannot forge a line on stderr or stdout either.
    func testErrorsAndMessagesEscapeNamesAndPaths() throws {
        let odd = folder.file("a\nforged\u{1B}[31m.vault").path
        assertFailure(try coffer(["--vault", odd, "get", "s", "a"]), status: .noVault,
                      message: "no vault at \(folder.url.path)/a\\nforged\\x1b[31m.vault")
        try initVault()
        let backup = try coffer(["backup", folder.file("copy\rforged").path])
        XCTAssertEqual(backup.status, 0, backup.stderrText)
        XCTAssertEqual(backup.stdoutText, "backed up to \(folder.url.path)/copy\\rforged\n")
        assertFailure(try coffer(["backup", folder.file("copy\rforged").path]), status: .alreadyExists,
                      message: "a vault already exists at \(folder.url.path)/copy\\rforged")
    }

    /// A record whose plaintext breaks the format (here: a date of 7 bytes) is an integrity
    /// failure of that item: `get` exits 3 and `list` skips it with the usual warning, where
    /// before `get` returned the secret and `list` failed whole.
    func testMalformedRecordIsSkippedByListAndFailsGet() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "good", "a"], stdin: Data("v".utf8)).status, 0)
        try RecordForgery.sealMalformedRecord(in: vault, passphrase: passphrase, service: "bad", account: "a")
        assertFailure(try coffer(["get", "bad", "a"]), status: .integrityFailure, message: "integrity failure: the item's record was modified, moved or copied")
        let list = try coffer(["list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(list.stdoutText, "generic\tgood\ta\t\n")
        XCTAssertEqual(list.stderrText, "coffer: warning: 1 record(s) failed the integrity check and are not listed; run 'coffer check'\n")
    }

    /// Other failures get their documented statuses: usage 64, too large 65, no vault 66, permissions 77.
    func testOtherStatuses() throws {
        let usage = try coffer(["get", "only-one-argument"])
        XCTAssertEqual(usage.exitStatus, .usage)
        XCTAssertEqual(usage.stderrText.split(separator: "\n").count, 1, usage.stderrText)

        assertFailure(try coffer(["get", "s", "a"]), status: .noVault, message: "no vault at \(vault.path)")
        try initVault()
        let tooLarge = try coffer(["set", "s", "a"], stdin: Data(count: (1 << 20) + 1))
        assertFailure(tooLarge, status: .dataError, message: "secret too large: 1048577 bytes (limit 1048576)")
        chmod(vault.path, 0o644)
        assertFailure(try coffer(["get", "s", "a"]), status: .insecurePermissions,
                      message: "insecure permissions on \(vault.path): mode 644 lets others in; expected 600")
    }
}
