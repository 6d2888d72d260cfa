import CofferTestSupport
import CSQLite
import Foundation
import XCTest
@testable import Coffer

/// Coffer does exactly what docs/vault-format.md tells a reader to do: one strict decoder on
/// every read path, the row-key check on every read, and the reader rules of sections 2 and 4.
final class VaultReaderRulesTests: XCTestCase {
    let folder = TemporaryFolder()
    let id = ItemID.genericPassword(service: "s", account: "a")
    let neighbour = ItemID.genericPassword(service: "n", account: "b")

    /// A record that breaks any MUST of section 5.3 is an integrity failure of its item only:
    /// `secret`, `item` and `contains` throw; `items` skips it and counts it; other items stay
    /// readable; rotation refuses to drop it.
    func testMalformedPlaintextIsAnIntegrityFailureOfThatItemOnly() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("fine".utf8), for: neighbour)
        for (rule, plaintext) in RecordForgery.malformedPlaintexts {
            try vault.forgeRecord(plaintext, for: id)
            XCTAssertThrows(.integrityFailure, try vault.secret(for: self.id), rule)
            XCTAssertThrows(.integrityFailure, try vault.item(for: self.id), rule)
            XCTAssertEqual(try vault.items(matching: .all).map(\.id), [neighbour], rule)
            XCTAssertEqual(try vault.unreadableRecordCount(), 1, rule)
            XCTAssertEqual(try vault.secret(for: neighbour), Data("fine".utf8), rule)
        }
        XCTAssertThrows(.integrityFailure, try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)]))
    }

    /// A well-formed record in another item's row (sealed for that row) is refused on every
    /// read: the row key recomputed from its names must be the row's.
    func testRecordInTheWrongRowIsRefused() throws {
        let vault = try folder.makeVault()
        try vault.forgeRecord(RecordForgery.plaintext(service: "s", account: "a"), for: id, rowOf: neighbour)
        XCTAssertThrows(.integrityFailure, try vault.secret(for: neighbour))
        XCTAssertEqual(try vault.items(matching: .all), [])
        XCTAssertEqual(try vault.unreadableRecordCount(), 1)
        XCTAssertNil(try vault.secret(for: id), "the record was never in the row of s/a")
    }

    /// The independent Python reader, written from the spec, rejects the same records.
    func testIndependentReaderRejectsTheSameRecords() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("fine".utf8), for: neighbour)
        for (index, (_, plaintext)) in RecordForgery.malformedPlaintexts.enumerated() {
            try vault.forgeRecord(plaintext, for: .genericPassword(service: "forged", account: "\(index)"))
        }
        try vault.forgeRecord(RecordForgery.plaintext(), for: id, rowOf: .genericPassword(service: "misplaced", account: "x"))
        let expected = RecordForgery.malformedPlaintexts.count + 1
        XCTAssertEqual(try vault.unreadableRecordCount(), expected)
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", VaultFixtureTests.fixtures.appendingPathComponent("read_vault.py").path, folder.file("test.vault").path],
            stdin: Data(testPassphrase.utf8))
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        let dump = try XCTUnwrap(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any])
        XCTAssertEqual(dump["unreadable"] as? Int, expected)
        XCTAssertEqual((dump["items"] as? [Any])?.count, 1)
    }

    /// A sealed record over 2 MiB is refused without being decrypted.
    func testOversizedRecordIsRefused() throws {
        let vault = try folder.makeVault()
        try vault.forgeRecord(RecordForgery.plaintext(secret: Array(repeating: 1, count: Limits.maxRecordBytes)), for: id)
        XCTAssertThrows(.integrityFailure, try vault.secret(for: self.id))
    }

    /// An extra table, index, trigger or view makes the file corrupt (section 2).
    func testExtraSchemaObjectsAreRefused() throws {
        let statements = [
            ("CREATE TABLE extra (x)", "the vault's tables are not the format's"),
            ("CREATE INDEX extra ON key_slots (kind)", "the vault's tables are not the format's"),
            ("CREATE VIEW extra AS SELECT 1", "unexpected triggers or views"),
        ]
        for (index, (statement, reason)) in statements.enumerated() {
            let url = folder.file("extra\(index).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try RawVaultFile(url).execute(statement)
            XCTAssertThrows(.corruptVault(reason: reason), try Vault.open(at: url, configuration: .test()), statement)
        }
    }

    /// A vault in rollback-journal mode opens; reading never changes its mode or its bytes,
    /// and the first write switches it to WAL (section 2).
    func testRollbackJournalVaultIsReadAsIsAndSwitchedToWALOnWrite() throws {
        do {
            let vault = try folder.makeVault()
            try vault.set(Data("v".utf8), for: id)
        }
        let url = folder.file("test.vault")
        try RawVaultFile(url).execute("PRAGMA journal_mode = DELETE")
        let before = try Data(contentsOf: url)
        XCTAssertEqual(before[18], 1, "rollback-journal mode in the header")

        let reader = try Vault.open(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try reader.secret(for: id), Data("v".utf8))
        XCTAssertEqual(try reader.items(matching: .all).count, 1)
        XCTAssertEqual(try Data(contentsOf: url), before, "reads left the file byte for byte as it was")

        try reader.set(Data("w".utf8), for: id)
        XCTAssertEqual(try RawVaultFile(url).rows("PRAGMA journal_mode").first?.first as? String, "wal")
        XCTAssertEqual(try reader.secret(for: id), Data("w".utf8))
    }

    /// Key-slot rules (section 4.1): a passphrase slot with another KDF or a salt of the wrong
    /// size, a key-file slot with KDF columns, and a wrapped key of the wrong size make the
    /// file corrupt; a slot of an unknown kind is kept and ignored.
    func testKeySlotRules() throws {
        let broken = [
            ("UPDATE key_slots SET kdf = 'scrypt'", "key slot 1 names an unknown KDF"),
            ("UPDATE key_slots SET salt = zeroblob(15)", "key slot 1 has KDF parameters out of range"),
            ("UPDATE key_slots SET opslimit = NULL", "key slot 1 has KDF parameters out of range"),
            ("UPDATE key_slots SET wrapped_key = zeroblob(71)", "key slot 1 has a wrapped key of the wrong size"),
            ("INSERT INTO key_slots (kind, kdf, wrapped_key, created_at) VALUES ('keyfile', 'argon2id13', zeroblob(72), 0)",
             "key slot 2 (keyfile) has KDF parameters"),
            ("INSERT INTO key_slots (kind, salt, wrapped_key, created_at) VALUES ('key', zeroblob(16), zeroblob(72), 0)",
             "key slot 2 (key) has KDF parameters"),
        ]
        for (index, (statement, reason)) in broken.enumerated() {
            let url = folder.file("slots\(index).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try RawVaultFile(url).execute(statement)
            XCTAssertThrows(.corruptVault(reason: reason), try Vault.open(at: url, configuration: .test()).keySlots(), statement)
        }
        let url = folder.file("future.vault")
        _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
        try RawVaultFile(url).execute(
            "INSERT INTO key_slots (kind, kdf, salt, wrapped_key, created_at) VALUES ('tpm2', 'x', zeroblob(3), zeroblob(99), 0)")
        let vault = try Vault.open(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try vault.keySlots().map(\.kind).last, .other("tpm2"))
    }

    /// More than 64 key slots make the file corrupt (section 4.1's size limit).
    func testTooManySlotsAreRefused() throws {
        _ = try folder.makeVault()
        let raw = try RawVaultFile(folder.file("test.vault"))
        for _ in 0..<64 { try raw.execute("INSERT INTO key_slots (kind, wrapped_key, created_at) VALUES ('future', x'00', 0)") }
        XCTAssertThrows(.corruptVault(reason: "more than 64 key slots"), try Vault.open(at: self.folder.file("test.vault"), configuration: .test()).keySlots())
    }

    /// Slots of the credential's kind are tried in ascending slot order until one opens.
    func testPassphraseSlotsAreTriedInSlotOrder() throws {
        let vault = try folder.makeVault()
        try vault.addKeySlot(.passphrase("second"))
        try vault.set(Data("v".utf8), for: id)
        for passphrase in [testPassphrase, "second"] {
            let reopened = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(passphrase), configuration: .test())
            XCTAssertEqual(try reopened.secret(for: id), Data("v".utf8))
        }
        XCTAssertThrows(.wrongPassphrase, try Vault.open(at: self.folder.file("test.vault"), unlock: .passphrase("third"), configuration: .test()))
    }
}
