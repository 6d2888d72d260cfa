import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The committed vault made by format version 1 (Tests/CofferTests/Fixtures/v1.vault, made by
/// `coffer-test-helper make-fixture`). Every later version of Coffer must keep reading it.
final class VaultFixtureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    let folder = TemporaryFolder()

    func fixtureCopy() throws -> (vault: URL, key: URL) {
        try Self.copyFixture(into: folder)
    }

    /// A private copy (git checks files out 0644, which the vault rightly refuses).
    static func copyFixture(into folder: TemporaryFolder) throws -> (vault: URL, key: URL) {
        let vault = folder.file("v1.vault"), key = folder.file("v1.key")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("v1.vault"), to: vault)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("v1.key"), to: key)
        chmod(vault.path, 0o600)
        chmod(key.path, 0o600)
        return (vault, key)
    }

    static let created = Date(timeIntervalSince1970: 1_795_305_600)

    /// The fixture opens with its passphrase and with its key file, and holds exactly the expected
    /// items, attributes and secrets.
    func testReadsCommittedFixture() throws {
        let copy = try fixtureCopy()
        for credential in [VaultCredential.passphrase("coffer fixture v1"), .keyFile(copy.key)] {
            let vault = try Vault.open(at: copy.vault, unlock: credential)
            XCTAssertEqual(try vault.keySlots().map(\.kind), [.passphrase(.interactive), .keyFile])
            let items = try vault.items(matching: .all)
            XCTAssertEqual(items.map { "\($0.id.service)|\($0.id.account)" }, [
                "binary|bytes", "com.example.mail|alice@example.com", "empty|none", "token|alice", "ünïcödé|名前",
                "api.example.com|svc",
            ])
            XCTAssertTrue(items.allSatisfy { $0.created == Self.created && $0.modified == Self.created })

            let mail = try XCTUnwrap(try vault.item(for: .genericPassword(service: "com.example.mail", account: "alice@example.com")))
            XCTAssertEqual(mail.secret, Data("correct horse".utf8))
            XCTAssertEqual(mail.attributes.options, ItemOptions(label: "Mail", comment: "fixture item", custom: ["env": "prod", "tier": "gold"]))

            let api = try XCTUnwrap(try vault.item(for: .internetPassword(server: "api.example.com", account: "svc")))
            XCTAssertEqual(api.secret, Data("tok_123".utf8))
            XCTAssertEqual(api.attributes.internet, InternetAttributes(protocol: "https", port: 443, path: "/v1", authenticationType: "oauth2"))

            XCTAssertEqual(try vault.secret(for: .genericPassword(service: "binary", account: "bytes")), Data([0, 0xFF, 0x10, 0x80, 0]))
            XCTAssertEqual(try vault.secret(for: .genericPassword(service: "ünïcödé", account: "名前")), Data("パスワード🔑".utf8))
            XCTAssertEqual(try vault.secret(for: .genericPassword(service: "empty", account: "none")), Data())
            XCTAssertEqual(try vault.item(for: .genericPassword(service: "token", account: "alice"))?.attributes.expiresAt,
                           Date(timeIntervalSince1970: 4_102_444_800))
        }
    }

    /// The fixture stays writable by this version: setting an item in a copy works and reads back.
    func testFixtureAcceptsWrites() throws {
        let copy = try fixtureCopy()
        let vault = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        try vault.set(Data("new".utf8), for: .genericPassword(service: "com.example.mail", account: "alice@example.com"))
        XCTAssertEqual(try vault.item(for: .genericPassword(service: "com.example.mail", account: "alice@example.com"))?.attributes.created,
                       Self.created)
    }
}
