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
        assertFailure(try coffer(["get", "s", "a"]), status: 1, message: "item not found")
        assertFailure(try coffer(["delete", "s", "a"]), status: 1, message: "item not found")
    }

    /// A wrong passphrase exits 2 with one line that does not echo the passphrase.
    func testWrongPassphrase() throws {
        try initVault()
        let outcome = try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "hunter2-wrong"])
        assertFailure(outcome, status: 2, message: "wrong passphrase")
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
        let statuses = [try coffer(["get", "s", "a"]).status, try coffer(["get", "s", "b"]).status].sorted()
        XCTAssertEqual(statuses, [0, 3])
        let list = try coffer(["list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(list.stderrText, "coffer: warning: 1 record(s) failed the integrity check and are not listed\n")
    }

    /// Other failures get their documented statuses: usage 64, too large 65, no vault 66, permissions 77.
    func testOtherStatuses() throws {
        let usage = try coffer(["get", "only-one-argument"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertEqual(usage.stderrText.split(separator: "\n").count, 1, usage.stderrText)

        assertFailure(try coffer(["get", "s", "a"]), status: 66, message: "no vault at \(vault.path)")
        try initVault()
        let tooLarge = try coffer(["set", "s", "a"], stdin: Data(count: (1 << 20) + 1))
        assertFailure(tooLarge, status: 65, message: "secret too large: 1048577 bytes (limit 1048576)")
        chmod(vault.path, 0o644)
        assertFailure(try coffer(["get", "s", "a"]), status: 77,
                      message: "insecure permissions on \(vault.path): mode 644 lets others in; expected 600")
    }

    /// `--help` documents the exit statuses.
    func testHelpListsExitStatuses() throws {
        let help = try coffer(["--help"])
        XCTAssertEqual(help.status, 0)
        for line in ["0   ok", "1   item not found", "2   wrong passphrase or key", "3   integrity failure or corrupt vault", "64  usage error"] {
            XCTAssertTrue(help.stdoutText.contains(line), line)
        }
    }
}
