import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultCorruptionTests: XCTestCase {
    let folder = TemporaryFolder()

    private func writePrivate(_ data: Data, _ name: String) throws -> URL {
        let url = folder.file(name)
        try data.write(to: url)
        chmod(url.path, 0o600)
        return url
    }

    private func openError(_ url: URL) -> CofferError? {
        do {
            _ = try Vault.open(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
            return nil
        } catch {
            return error
        }
    }

    /// Random bytes, an empty file and another app's SQLite database are refused as corrupt vaults.
    func testNotAVault() throws {
        let random = try writePrivate(Data((0..<8192).map { _ in UInt8.random(in: 0...255) }), "random.vault")
        XCTAssertEqual(openError(random), .corruptVault(reason: "the file is not a valid SQLite database"))

        let empty = try writePrivate(Data(), "empty.vault")
        XCTAssertEqual(openError(empty), .corruptVault(reason: "not a Coffer vault"))

        let other = try writePrivate(Data(), "other.vault")
        try RawVaultFile(other).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi')")
        XCTAssertEqual(openError(other), .corruptVault(reason: "not a Coffer vault"))
    }

    /// A vault from a newer format version is refused with unsupportedFormatVersion.
    func testNewerFormatVersion() throws {
        _ = try folder.makeVault()
        try RawVaultFile(folder.file("test.vault")).execute("PRAGMA user_version = 4")
        XCTAssertEqual(openError(folder.file("test.vault")), .unsupportedFormatVersion(4))
    }

    /// A vault truncated to half its size fails with a typed error, never a crash.
    func testTruncatedFile() throws {
        do {
            // Closing the vault (dropping it) checkpoints the WAL into the main file.
            let vault = try folder.makeVault()
            for index in 0..<200 { try vault.set(Data(count: 512), for: .genericPassword(service: "s", account: "\(index)")) }
        }
        let truncatedURL = folder.file("truncated.vault")
        try FileManager.default.copyItem(at: folder.file("test.vault"), to: truncatedURL)
        try FileManager.default.removeItem(at: folder.file("test.vault"))
        let data = try Data(contentsOf: truncatedURL)
        XCTAssertGreaterThan(data.count, 40_000, "the items were checkpointed into the main file")
        try data.prefix(data.count / 2).write(to: truncatedURL)

        do {
            let reopened = try Vault.open(at: truncatedURL, unlock: .passphrase(testPassphrase), configuration: .test())
            _ = try reopened.items(matching: .all)
            XCTFail("a truncated vault must not read cleanly")
        } catch {
            XCTAssertEqual(error, .corruptVault(reason: "the file is not a valid SQLite database"))
        }
    }

    /// A vault with an added trigger is refused before any SQL of ours runs against it.
    func testTriggersAreRefused() throws {
        _ = try folder.makeVault()
        try RawVaultFile(folder.file("test.vault")).execute(
            "CREATE TRIGGER evil AFTER INSERT ON items BEGIN DELETE FROM key_slots; END")
        XCTAssertEqual(openError(folder.file("test.vault")), .corruptVault(reason: "unexpected triggers or views"))
    }

    /// A passphrase slot whose stored Argon2id cost is absurd (1 TiB) is refused at once, not run.
    func testAbsurdKDFCostIsRefused() throws {
        _ = try folder.makeVault()
        try RawVaultFile(folder.file("test.vault")).execute("UPDATE key_slots SET memlimit = 1099511627776")
        let start = Date()
        XCTAssertEqual(openError(folder.file("test.vault")), .corruptVault(reason: "key slot 1 has KDF parameters out of range"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// A file that is refused is left byte for byte as it was, with no -wal or -shm made beside
    /// it: an empty file, random bytes, and other apps' SQLite databases in WAL and in
    /// rollback-journal mode. Nothing runs against them before the header is read.
    func testRefusedFilesAreLeftByteForByte() throws {
        let empty = try writePrivate(Data(), "empty.vault")
        let random = try writePrivate(Data((0..<8192).map { _ in UInt8.random(in: 0...255) }), "random.vault")
        let foreignRollback = try writePrivate(Data(), "rollback.vault")
        try RawVaultFile(foreignRollback).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi')")
        let foreignWAL = try writePrivate(Data(), "wal.vault")
        try RawVaultFile(foreignWAL).execute("PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi')")
        for url in [empty, random, foreignRollback, foreignWAL] {
            let before = try Data(contentsOf: url)
            XCTAssertNotNil(openError(url), url.lastPathComponent)
            XCTAssertEqual(try Data(contentsOf: url), before, url.lastPathComponent)
            for suffix in ["-wal", "-shm", "-journal"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + suffix), url.lastPathComponent + suffix)
            }
        }
        XCTAssertEqual(try Data(contentsOf: empty).count, 0, "an empty file gets no SQLite header")
    }

    /// Damage to the schema is a corrupt vault (exit 3 in the CLI), never a generic SQL error:
    /// a missing table, a renamed column, a column of another type, a missing vault row.
    func testDamagedSchemaIsCorruptVault() throws {
        let damage = [
            ("DROP TABLE items", "the vault's tables are not the format's"),
            ("ALTER TABLE key_slots RENAME COLUMN salt TO pepper", "the key_slots table is not the format's"),
            ("ALTER TABLE vault ADD COLUMN extra TEXT", "the vault table is not the format's"),
            ("DELETE FROM vault", "missing vault identifier"),
            ("UPDATE vault SET key_check = x'00'", "the key check is damaged"),
        ]
        for (index, (statement, reason)) in damage.enumerated() {
            let url = folder.file("damaged\(index).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try RawVaultFile(url).execute(statement)
            XCTAssertEqual(openError(url), .corruptVault(reason: reason), statement)
        }
        // sqlite_schema itself damaged: SQLite reports a malformed schema.
        let url = folder.file("schema.vault")
        _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
        try RawVaultFile(url).execute(
            "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE items (' WHERE name = 'items'; PRAGMA writable_schema = OFF")
        guard case .corruptVault = openError(url) else { return XCTFail("a malformed schema must be corruptVault, got \(String(describing: openError(url)))") }
    }

    /// Junk passphrase slots cannot stall an unlock: more than 8 passphrase slots, or more
    /// Argon2id work than two SENSITIVE slots together, are refused as corrupt before any KDF
    /// runs, and so is one slot beyond SENSITIVE's work (1 GiB × 16 passes).
    func testJunkPassphraseSlotsAreRefusedBeforeAnyKDF() throws {
        let gib: Int64 = 1 << 30
        let cases: [(String, String)] = [
            (String(repeating: "INSERT INTO key_slots (kind, kdf, opslimit, memlimit, salt, wrapped_key, created_at) VALUES ('passphrase', 'argon2id13', 1, 8192, zeroblob(16), zeroblob(72), 0);", count: 8),
             "more than 8 passphrase slots"),
            (String(repeating: "INSERT INTO key_slots (kind, kdf, opslimit, memlimit, salt, wrapped_key, created_at) VALUES ('passphrase', 'argon2id13', 4, \(gib), zeroblob(16), zeroblob(72), 0);", count: 2),
             "the passphrase slots together cost more Argon2id work than one unlock may"),
        ]
        for (index, (statements, reason)) in cases.enumerated() {
            let url = folder.file("junk\(index).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try RawVaultFile(url).execute("UPDATE key_slots SET slot_id = 100; " + statements)
            let start = ContinuousClock.now
            XCTAssertEqual(openError(url), .corruptVault(reason: reason))
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "refused before running Argon2id")
        }
        let url = folder.file("huge.vault")
        _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
        try RawVaultFile(url).execute("UPDATE key_slots SET opslimit = 16, memlimit = \(gib)")
        XCTAssertEqual(openError(url), .corruptVault(reason: "key slot 1 has KDF parameters out of range"))
    }

    /// Opening a missing vault says so; creating over an existing one refuses and keeps it intact.
    func testMissingAndExisting() throws {
        XCTAssertEqual(openError(folder.file("nope.vault")), .vaultNotFound(path: folder.file("nope.vault").path))
        let vault = try folder.makeVault()
        try vault.set(Data("keep".utf8), for: .genericPassword(service: "s", account: "a"))
        XCTAssertThrows(.vaultExists(path: folder.file("test.vault").path), try self.folder.makeVault())
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "s", account: "a")), Data("keep".utf8))
    }

    /// openOrCreate creates a missing vault, then opens the existing one with the same credential.
    func testOpenOrCreate() throws {
        let url = folder.file("nested/deeper/app.vault")
        let first = try Vault.openOrCreate(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        try first.set(Data("x".utf8), for: .genericPassword(service: "s", account: "a"))
        let second = try Vault.openOrCreate(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(first.id, second.id)
        XCTAssertEqual(try second.secret(for: .genericPassword(service: "s", account: "a")), Data("x".utf8))
        XCTAssertThrows(.wrongPassphrase, try Vault.openOrCreate(at: url, unlock: .passphrase("other"), configuration: .test()))
    }
}
