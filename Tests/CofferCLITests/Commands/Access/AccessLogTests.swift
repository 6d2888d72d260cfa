import CofferTestSupport
import Foundation
import XCTest

/// `coffer access log`: the audit log newest first, as text and JSON, with --since and --limit.
final class AccessLogTests: AccessCLITestCase {
    /// Three changes, then the log: JSON entries have time, program, frontDoor, action, item and
    /// decision, newest first; --since keeps the entries at or after its time; --limit the
    /// newest N; the text has one tab-separated line an entry.
    func testLogIsNewestFirstAndFilters() throws {
        try initVaultWithItem()
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"]).status, 0)
        let between = Date()
        XCTAssertEqual(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true"]).status, 0)
        XCTAssertEqual(try coffer(["access", "policy", "strict"]).status, 0)

        let entries = try log()
        XCTAssertEqual(entries.map { $0["action"] as? String }, ["policy", "revoke", "grant"])
        XCTAssertEqual(Set(entries[1].keys), ["time", "program", "frontDoor", "action", "item", "decision"])
        XCTAssertEqual(Set(entries[0].keys), ["time", "program", "frontDoor", "action", "decision"], "a policy change names no item")
        let times = try entries.map { try XCTUnwrap(($0["time"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }) }
        XCTAssertEqual(times, times.sorted(by: >))

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        XCTAssertEqual(try log(["--since", formatter.string(from: between)]).map { $0["action"] as? String }, ["policy", "revoke"])
        XCTAssertEqual(try log(["--since", "2000-01-01"]).count, 3)
        XCTAssertEqual(try log(["--since", "2999-01-01T00:00:00Z"]).count, 0)
        XCTAssertEqual(try log(["--limit", "1"]).map { $0["action"] as? String }, ["policy"])
        XCTAssertEqual(try coffer(["access", "log", "--since", "yesterday"]).exitStatus, .usage)
        XCTAssertEqual(try coffer(["access", "log", "--limit", "0"]).exitStatus, .usage)

        let text = try coffer(["access", "log"])
        XCTAssertEqual(text.status, 0, text.stderrText)
        let lines = text.stdoutText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(Array(lines[0].dropFirst()), [cofferPath + " (pinned: executable sha256 \(try sha256(cofferPath).prefix(12))…)", "cli", "policy", "", "", "credential"])
        XCTAssertEqual(Array(lines[1].dropFirst()), ["/usr/bin/true", "cli", "revoke", "mail", "ada", "credential"])
        XCTAssertNotNil(ISO8601DateFormatter().date(from: lines[2][0]), lines[2][0])
    }

    /// The log is encrypted: reading it needs the vault's credential; a vault from before
    /// format 3 has an empty one.
    func testTheLogNeedsTheCredential() throws {
        try initVaultWithItem()
        XCTAssertEqual(try coffer(["access", "log"], environment: ["COFFER_PASSPHRASE": nil]).exitStatus, .locked)
        XCTAssertEqual(try coffer(["access", "log"]).stdoutText, "")
        XCTAssertEqual(try log().count, 0)
    }
}
