import CofferTestSupport
import Foundation
import XCTest

/// `coffer check`: exit 0 and a summary for a sound vault, exit 3 and one line per problem otherwise.
final class CheckCommandTests: CLITestCase {
    func testSoundAndDamagedVaults() throws {
        try initVault()
        for account in ["a", "b", "c"] {
            XCTAssertEqual(try coffer(["set", "s", account], stdin: Data("v".utf8)).status, 0)
        }
        let clean = try coffer(["check"])
        XCTAssertEqual(clean.status, 0, clean.stderrText)
        XCTAssertEqual(clean.stdoutText, "3 sound record(s), 0 problem(s)\n")

        // Damage one row key, as a bad sector might: `get` of that item now says "not found".
        let damage = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); k=d.execute('select row_key from items order by row_key limit 1').fetchone()[0]; d.execute('update items set row_key=? where row_key=?', (bytes([k[0]^1])+k[1:], k)); d.commit()", vault.path])
        XCTAssertEqual(damage.status, 0, damage.stderrText)
        let statuses = try ["a", "b", "c"].map { try coffer(["get", "s", $0]).exitStatus }
        XCTAssertEqual(statuses.filter { $0 == .ok }.count, 2)
        XCTAssertEqual(statuses.filter { $0 == .notFound }.count, 1, "a point lookup cannot tell a damaged row from an absent one")
        let list = try coffer(["list"])
        XCTAssertEqual(list.status, 0, list.stderrText)
        XCTAssertEqual(list.stdoutText.split(separator: "\n").count, 2, "the damaged record is not listed")
        XCTAssertEqual(list.stderrText, "coffer: warning: 1 record(s) failed the integrity check and are not listed; run 'coffer check'\n",
                       "list reports the record a lookup cannot see")

        // The item's two attribute-index rows still name the row key it had: stale rows, reported too.
        let damaged = try coffer(["check"])
        XCTAssertEqual(damaged.exitStatus, .integrityFailure)
        let lines = damaged.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, damaged.stdoutText)
        XCTAssertTrue(lines[0].hasPrefix("problem: record ") && lines[0].hasSuffix(": fails authentication (edited, moved or copied)"), String(lines[0]))
        XCTAssertEqual(lines[1], "problem: attribute index: 0 row(s) missing, 2 stale")
        XCTAssertEqual(lines[2], "2 sound record(s), 2 problem(s)")
        XCTAssertEqual(damaged.stderrText, "coffer: the vault has 2 problem(s)\n")
    }

    /// Damage to the schema is a corrupt vault (exit 3) for every command, not exit 69 "SQL
    /// logic error"; the damage is made by Python's sqlite3, as another program would.
    func testADamagedSchemaIsExit3() throws {
        let damage = [
            "d.execute('drop table items')",
            "d.execute('pragma writable_schema=on'); d.execute(\"update sqlite_schema set sql='CREATE TABLE items (' where name='items'\")",
        ]
        for statement in damage {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: vault.path + suffix) }
            try initVault()
            let damaged = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["python3", "-c", "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); \(statement); d.commit()", vault.path])
            XCTAssertEqual(damaged.status, 0, damaged.stderrText)
            for arguments in [["get", "s", "a"], ["list"], ["check"], ["set", "s", "a"]] {
                let outcome = try coffer(arguments, stdin: Data("v".utf8))
                XCTAssertEqual(outcome.exitStatus, .integrityFailure, "\(statement): \(arguments): \(outcome.stderrText)")
            }
        }
    }
}
