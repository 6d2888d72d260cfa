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
        try RawVaultFile(folder.file("test.vault")).execute("PRAGMA user_version = 2")
        XCTAssertEqual(openError(folder.file("test.vault")), .unsupportedFormatVersion(2))
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
