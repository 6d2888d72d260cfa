import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// `coffer access show`: an item's owner, its access list and the vault's policy, as text and JSON.
final class AccessShowTests: AccessCLITestCase {
    /// An item `coffer set` stores with the vault open here is owned by coffer itself (its real
    /// path; pinned to its SHA-256, since the user can change the file), its list is empty, and
    /// a new vault's policy is confirm: as text, one line each, and as JSON.
    func testShowsTheCLIAsOwnerAnEmptyListAndThePolicy() throws {
        try initVaultWithItem()
        let text = try coffer(["access", "show", "mail", "ada"])
        XCTAssertEqual(text.status, 0, text.stderrText)
        let lines = text.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 4, text.stdoutText)
        XCTAssertTrue(lines[0].hasPrefix("owner: \(cofferPath) (pinned: executable sha256 \(try sha256(cofferPath).prefix(12))…)"), lines[0])
        XCTAssertEqual(Array(lines[1...]), ["allowed: none", "policy: confirm", ""])

        let shown = try show()
        XCTAssertEqual(Set(shown.keys), ["class", "service", "account", "owner", "allowed", "policy"])
        XCTAssertEqual(shown["class"] as? String, "genericPassword")
        XCTAssertEqual(shown["service"] as? String, "mail")
        XCTAssertEqual(shown["account"] as? String, "ada")
        XCTAssertEqual(shown["policy"] as? String, "confirm")
        XCTAssertEqual((shown["allowed"] as? [Any])?.count, 0)
        let owner = try XCTUnwrap(shown["owner"] as? [String: Any])
        XCTAssertEqual(Set(owner.keys), ["executable", "executableSHA256", "executablePinned", "description"])
        XCTAssertEqual(owner["executable"] as? String, cofferPath)
        XCTAssertEqual(owner["executableSHA256"] as? String, try sha256(cofferPath))
        XCTAssertEqual(owner["executablePinned"] as? Bool, true)
        XCTAssertEqual(owner["description"] as? String, String(lines[0].dropFirst("owner: ".count)))
    }

    /// An item that does not exist is exit 1 for show, grant and revoke, and changes nothing.
    func testAMissingItemIsNotFound() throws {
        try initVaultWithItem()
        assertFailure(try coffer(["access", "show", "mail", "nobody"]), status: .notFound, message: "item not found")
        assertFailure(try coffer(["access", "grant", "mail", "nobody", "/usr/bin/true"]), status: .notFound, message: "item not found")
        assertFailure(try coffer(["access", "revoke", "mail", "nobody", "/usr/bin/true"]), status: .notFound, message: "item not found")
        assertFailure(try coffer(["access", "show", "mail", "ada", "--internet"]), status: .notFound, message: "item not found")
        XCTAssertEqual(try log().count, 0, "nothing was logged")
    }

    /// An item from before owners were kept (format 2) shows no owner: a line that says so, and
    /// no `owner` in JSON.
    func testAnItemFromFormat2HasNoOwner() throws {
        try copyFormat2Vault()
        let environment = ["COFFER_PASSPHRASE": Self.fixturePassphrase]
        let text = try coffer(["access", "show", "com.example.mail", "alice@example.com"], environment: environment)
        XCTAssertEqual(text.stdoutText, "owner: none (the item is older than owners)\nallowed: none\npolicy: open\n", text.stderrText)
        let shown = try show("com.example.mail", "alice@example.com", environment: environment)
        XCTAssertNil(shown["owner"])
        XCTAssertEqual(shown["policy"] as? String, "open")
    }

    /// A path that is not UTF-8 (the agent records paths as the kernel gives them) is escaped
    /// in JSON, `\xNN` a byte and `\\` a backslash, and marked `executableEscaped`; a UTF-8
    /// path is its text exactly, control characters included, and carries no mark. The text
    /// output escapes both.
    func testPathsThatAreNotUTF8AreEscapedAndMarked() throws {
        try initVaultWithItem()
        let raw = Array("/opt/caf".utf8) + [0xE9] + Array("\\bin".utf8)
        let control = "/opt/tab\there"
        let opened = try Vault.open(at: vault, unlock: .passphrase(passphrase))
        try opened.grant(try Program(executablePath: raw), to: .genericPassword(service: "mail", account: "ada"))
        try opened.grant(try Program(executablePath: Array(control.utf8)), to: .genericPassword(service: "mail", account: "ada"))
        opened.lock()

        let allowed = try XCTUnwrap(try show()["allowed"] as? [[String: Any]])
        XCTAssertEqual(allowed.count, 2)
        let escaped = try XCTUnwrap(allowed.first { $0["executableEscaped"] != nil })
        XCTAssertEqual(escaped["executable"] as? String, "/opt/caf\\xe9\\\\bin")
        XCTAssertEqual(escaped["executableEscaped"] as? Bool, true)
        let exact = try XCTUnwrap(allowed.first { $0["executableEscaped"] == nil })
        XCTAssertEqual(exact["executable"] as? String, control)
        XCTAssertEqual(exact["executablePinned"] as? Bool, false)
        XCTAssertNil(exact["executableSHA256"])

        let text = try coffer(["access", "show", "mail", "ada"]).stdoutText
        XCTAssertTrue(text.contains("allowed: /opt/caf\\xe9\\\\bin\n"), text)
        XCTAssertTrue(text.contains("allowed: /opt/tab\\u{9}here\n"), text)
    }
}
