import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultTamperTests: XCTestCase {
    let folder = TemporaryFolder()
    let alice = ItemID.genericPassword(service: "mail", account: "alice")
    let bob = ItemID.genericPassword(service: "mail", account: "bob")
    let carol = ItemID.genericPassword(service: "mail", account: "carol")

    private func vaultWithThreeItems() throws -> (Vault, RawVaultFile) {
        let vault = try folder.makeVault()
        for id in [alice, bob, carol] { try vault.set(Data("pw-\(id.account)".utf8), for: id) }
        return (vault, try RawVaultFile(folder.file("test.vault")))
    }

    private func rowKey(_ vault: Vault, _ id: ItemID) throws -> [UInt8] {
        try vault.withUnlockedKeys { _, keys in keys.rowKey(for: id) }
    }

    private func record(_ raw: RawVaultFile, _ rowKey: [UInt8]) throws -> [UInt8] {
        try XCTUnwrap(raw.items().first { $0.rowKey == rowKey }?.record)
    }

    /// A flipped byte in one record fails that item with integrityFailure; the others stay
    /// readable, queries skip it, and the failed read neither deletes nor rewrites the record.
    func testFlippedByte() throws {
        let (vault, raw) = try vaultWithThreeItems()
        let key = try rowKey(vault, alice)
        var tampered = try record(raw, key)
        tampered[tampered.count / 2] ^= 0x40
        try raw.setRecord(tampered, at: key)

        XCTAssertThrows(.integrityFailure, try vault.secret(for: self.alice))
        XCTAssertThrows(.integrityFailure, try vault.item(for: self.alice))
        XCTAssertEqual(try vault.secret(for: bob), Data("pw-bob".utf8))
        XCTAssertEqual(try vault.items(matching: .all).map(\.id.account), ["bob", "carol"])
        XCTAssertEqual(try vault.unreadableRecordCount(), 1)
        XCTAssertEqual(try record(raw, key), tampered, "a failed read must not touch the record")
    }

    /// Two records swapped between rows both fail authentication.
    func testSwappedRecords() throws {
        let (vault, raw) = try vaultWithThreeItems()
        let aliceKey = try rowKey(vault, alice), bobKey = try rowKey(vault, bob)
        let aliceRecord = try record(raw, aliceKey), bobRecord = try record(raw, bobKey)
        try raw.setRecord(bobRecord, at: aliceKey)
        try raw.setRecord(aliceRecord, at: bobKey)

        XCTAssertThrows(.integrityFailure, try vault.secret(for: self.alice))
        XCTAssertThrows(.integrityFailure, try vault.secret(for: self.bob))
        XCTAssertEqual(try vault.secret(for: carol), Data("pw-carol".utf8))
    }

    /// A record copied from another vault into this vault's row for the same item fails.
    func testRecordFromAnotherVault() throws {
        let (vault, raw) = try vaultWithThreeItems()
        let other = try folder.makeVault("other.vault", credential: .passphrase(testPassphrase))
        try other.set(Data("attacker".utf8), for: alice)
        let foreign = try XCTUnwrap(try RawVaultFile(folder.file("other.vault")).items().first?.record)

        try raw.setRecord(foreign, at: try rowKey(vault, alice))
        XCTAssertThrows(.integrityFailure, try vault.secret(for: self.alice))

        // Even with the foreign row key too, it is another vault's key and id.
        let foreignKey = try XCTUnwrap(try RawVaultFile(folder.file("other.vault")).items().first?.rowKey)
        try raw.insertRecord(foreign, at: foreignKey)
        XCTAssertEqual(try vault.items(matching: .all).count, 2, "alice and the foreign row are skipped")
        XCTAssertEqual(try vault.unreadableRecordCount(), 2)
    }

    /// Setting an item whose record was tampered with replaces it: an explicit write is the repair.
    func testSetRepairsTamperedItem() throws {
        let (vault, raw) = try vaultWithThreeItems()
        let key = try rowKey(vault, alice)
        var tampered = try record(raw, key)
        tampered[0] ^= 1
        try raw.setRecord(tampered, at: key)
        try vault.set(Data("new".utf8), for: alice)
        XCTAssertEqual(try vault.secret(for: alice), Data("new".utf8))
    }

    /// A modified key slot opens nothing (the vault reads as a wrong passphrase) and is not rewritten.
    func testTamperedKeySlot() throws {
        _ = try vaultWithThreeItems()
        let raw = try RawVaultFile(folder.file("test.vault"))
        var wrapped = try XCTUnwrap(raw.rows("SELECT wrapped_key FROM key_slots").first?.first as? [UInt8])
        wrapped[30] ^= 1
        _ = try raw.rows("UPDATE key_slots SET wrapped_key = ?1", [wrapped])

        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertThrows(.wrongPassphrase, try vault.unlock(with: .passphrase(testPassphrase)))
        XCTAssertEqual(try raw.rows("SELECT wrapped_key FROM key_slots").first?.first as? [UInt8], wrapped)
    }
}
