import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The committed vault made by format version 2 (Tests/CofferTests/Fixtures/v2.vault, made by
/// `coffer-test-helper make-fixture-v2` before version 3 existed). Every later version of Coffer
/// must read it as it is, and migrate it without losing anything.
final class VaultFixtureV2Tests: XCTestCase {
    static let passphrase = "coffer fixture v2"
    /// 2026-11-27T00:00:00Z, the created and modified date of every item.
    static let created = Date(timeIntervalSince1970: 1_796_083_200)
    let folder = TemporaryFolder()

    /// A private copy (git checks files out 0644, which the vault rightly refuses).
    static func copyFixture(into folder: TemporaryFolder) throws -> URL {
        let vault = folder.file("v2.vault")
        try FileManager.default.copyItem(at: VaultFixtureTests.fixtures.appendingPathComponent("v2.vault"), to: vault)
        chmod(vault.path, 0o600)
        return vault
    }

    static let mail = ItemID.genericPassword(service: "com.example.mail", account: "alice@example.com")
    static let attributeItem = ItemID.attributeItem(identifier: "0123456789abcdef0123456789abcdef")

    /// What the fixture holds: its six items, their attributes and secrets.
    private func checkFixtureItems(_ vault: Vault, file: StaticString = #filePath, line: UInt = #line) throws {
        let items = try vault.items(matching: .all)
        XCTAssertEqual(items.map { "\($0.id.itemClass.rawValue)|\($0.id.service)|\($0.id.account)" }, [
            "1|com.example.mail|alice@example.com", "1|empty|none", "1|token|alice", "1|ünïcödé|名前", "2|api.example.com|svc",
            "3|0123456789abcdef0123456789abcdef|",
        ], file: file, line: line)
        XCTAssertTrue(items.allSatisfy { $0.created == Self.created }, file: file, line: line)
        let mail = try XCTUnwrap(try vault.item(for: Self.mail))
        XCTAssertEqual(mail.secret, Data("correct horse".utf8), file: file, line: line)
        XCTAssertEqual(mail.attributes.options, ItemOptions(label: "Mail", comment: "fixture item", custom: ["env": "prod", "tier": "gold"]), file: file, line: line)
        let api = try XCTUnwrap(try vault.item(for: .internetPassword(server: "api.example.com", account: "svc")))
        XCTAssertEqual(api.attributes.internet, InternetAttributes(protocol: "https", port: 443, path: "/v1", authenticationType: "oauth2"), file: file, line: line)
        let attribute = try XCTUnwrap(try vault.item(for: Self.attributeItem))
        XCTAssertEqual(attribute.secret, Data("attribute secret".utf8), file: file, line: line)
        XCTAssertEqual(attribute.attributes.contentType, "text/plain", file: file, line: line)
        XCTAssertEqual(try vault.storedItems(withAttributes: ["xdg:schema": "org.example.Password"]).map(\.attributes.id), [Self.attributeItem], file: file, line: line)
        XCTAssertEqual(try vault.item(for: .genericPassword(service: "token", account: "alice"))?.attributes.contentType, "application/jwt", file: file, line: line)
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "ünïcödé", account: "名前")), Data("パスワード🔑".utf8), file: file, line: line)
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "empty", account: "none")), Data(), file: file, line: line)
    }

    /// The fixture opens with its passphrase and reads as it is: every item, no owners, the
    /// policy `open`, an empty audit log, a clean verification; and all this reading leaves the
    /// file byte for byte as it was, still version 2.
    func testReadsCommittedFixtureAsItIs() throws {
        let copy = try Self.copyFixture(into: folder)
        let before = try Data(contentsOf: copy)
        let vault = try Vault.open(at: copy, unlock: .passphrase(Self.passphrase))
        try checkFixtureItems(vault)
        XCTAssertTrue(try vault.storedItems(matching: .all).allSatisfy { $0.access == .unowned })
        XCTAssertEqual(try vault.access(for: Self.mail), .unowned)
        XCTAssertEqual(try vault.accessPolicy(), .open)
        XCTAssertEqual(try vault.auditLog(), [])
        XCTAssertTrue(try vault.verify().isClean)
        XCTAssertEqual(try Data(contentsOf: copy), before)
        XCTAssertEqual(try RawVaultFile(copy).rows("PRAGMA user_version").first?.first as? Int64, 2)
    }

    /// The first write migrates it to version 3 in its own transaction: the access tables with
    /// the policy `open`, every old item still there and unowned, the new item owned, the index
    /// kept, and a clean verification; a vault opened afresh checks it as version 3.
    func testFirstWriteMigratesToVersion3() throws {
        let copy = try Self.copyFixture(into: folder)
        let vault = try Vault.open(at: copy, unlock: .passphrase(Self.passphrase))
        let added = ItemID.genericPassword(service: "new", account: "item")
        try vault.set(Data("added".utf8), for: added, options: ItemOptions(custom: ["env": "prod"]))
        XCTAssertEqual(try RawVaultFile(copy).rows("PRAGMA user_version").first?.first as? Int64, 3)
        let reopened = try Vault.open(at: copy, unlock: .passphrase(Self.passphrase))
        XCTAssertEqual(try reopened.accessPolicy(), .open)
        XCTAssertEqual(try reopened.access(for: Self.mail), .unowned)
        XCTAssertEqual(try reopened.access(for: added)?.owner, Program.current())
        XCTAssertEqual(try reopened.storedItems(withAttributes: ["env": "prod"]).map(\.attributes.id), [Self.mail, added])
        try reopened.remove(added)
        try checkFixtureItems(reopened)
        XCTAssertTrue(try reopened.verify().isClean)
    }
}
