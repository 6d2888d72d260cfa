import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultKeySlotTests: XCTestCase {
    let folder = TemporaryFolder()
    let id = ItemID.genericPassword(service: "s", account: "a")

    private func open(_ credential: VaultCredential) throws -> Vault {
        try Vault.open(at: folder.file("test.vault"), unlock: credential, configuration: .test())
    }

    /// Changing the passphrase: the new one opens, the old one fails, the items are intact, and
    /// only the slot changed (the items table is byte-for-byte the same, so the cost is O(1)).
    func testChangePassphrase() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("v".utf8), for: id)
        let raw = try RawVaultFile(folder.file("test.vault"))
        let itemsBefore = try raw.items().map { $0.record }

        try vault.changePassphrase(from: testPassphrase, to: "new passphrase")

        XCTAssertEqual(try raw.items().map { $0.record }, itemsBefore)
        XCTAssertThrows(.wrongPassphrase, try self.open(.passphrase(testPassphrase)))
        XCTAssertEqual(try open(.passphrase("new passphrase")).secret(for: id), Data("v".utf8))
    }

    /// The costs these tests use: the configuration's default, and a stronger one set at creation.
    private let weak = PassphraseCost.test
    private let strong = PassphraseCost(operations: 2, memoryBytes: 128 * 1024)

    private func passphraseCosts(_ vault: Vault) throws -> [PassphraseCost] {
        try vault.keySlots().compactMap { if case .passphrase(let cost) = $0.kind { cost } else { nil } }
    }

    /// A changed passphrase keeps its slot's Argon2id cost; before, it silently took the
    /// configuration's (lower) default. Only an explicit cost lowers it.
    func testChangePassphraseKeepsTheSlotsCost() throws {
        _ = try Vault.create(at: folder.file("test.vault"), with: .passphrase(testPassphrase),
                             configuration: Vault.Configuration(passphraseCost: strong))
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        try vault.changePassphrase(from: testPassphrase, to: "second")
        XCTAssertEqual(try passphraseCosts(vault), [strong])
        try vault.changePassphrase(from: "second", to: "third", cost: weak)
        XCTAssertEqual(try passphraseCosts(vault), [weak])
    }

    /// A new passphrase slot gets the highest cost among the existing passphrase slots, not the
    /// configuration's default; an explicit cost wins; with no passphrase slot, the default.
    func testNewPassphraseSlotGetsTheStrongestExistingCost() throws {
        _ = try Vault.create(at: folder.file("test.vault"), with: .passphrase(testPassphrase),
                             configuration: Vault.Configuration(passphraseCost: strong))
        let vault = try open(.passphrase(testPassphrase))
        try vault.addKeySlot(.passphrase("second"))
        try vault.addKeySlot(.passphrase("third"), cost: weak)
        XCTAssertEqual(try passphraseCosts(vault), [strong, strong, weak])

        try KeyFile.generate(at: folder.file("k.key"))
        let keyOnly = try Vault.create(at: folder.file("key.vault"), with: .keyFile(folder.file("k.key")), configuration: .test())
        try keyOnly.addKeySlot(.passphrase("first"))
        XCTAssertEqual(try passphraseCosts(keyOnly), [weak])
    }

    /// Slot changes that would leave the passphrase slots beyond the unlock budget are refused
    /// and change nothing.
    func testSlotChangesStayWithinTheUnlockBudget() throws {
        let vault = try folder.makeVault()
        for index in 1..<UnlockBudget.maxPassphraseSlots { try vault.addKeySlot(.passphrase("p\(index)")) }
        XCTAssertThrows(.invalidArgument(reason: "more than 8 passphrase slots"), try vault.addKeySlot(.passphrase("one too many")))
        XCTAssertEqual(try passphraseCosts(vault).count, 8)
        XCTAssertNoThrow(try vault.addKeySlot(.key(.random(count: 32))), "other kinds are not limited by it")
    }

    /// A passphrase change with the wrong current passphrase fails and changes nothing.
    func testChangePassphraseNeedsTheOldOne() throws {
        _ = try folder.makeVault()
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertThrows(.wrongPassphrase, try vault.changePassphrase(from: "guess", to: "new"))
        XCTAssertNoThrow(try open(.passphrase(testPassphrase)))
    }

    /// The replaced wrapping does not linger: the WAL is truncated after the change.
    func testChangePassphraseLeavesNoOldWrapping() throws {
        let vault = try folder.makeVault()
        let raw = try RawVaultFile(folder.file("test.vault"))
        let oldWrapping = try XCTUnwrap(raw.rows("SELECT wrapped_key FROM key_slots").first?.first as? [UInt8])
        try vault.changePassphrase(from: testPassphrase, to: "new passphrase")
        for suffix in ["", "-wal"] {
            let path = folder.file("test.vault").path + suffix
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            XCTAssertNil(bytes.range(of: Data(oldWrapping)), "old wrapped key still in \(suffix.isEmpty ? "main file" : suffix)")
        }
    }

    /// Slots can be added (key file, raw key, second passphrase) and each opens the vault; removing
    /// one makes its credential fail; the last slot cannot be removed.
    func testAddAndRemoveSlots() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("v".utf8), for: id)
        try KeyFile.generate(at: folder.file("k.key"))
        let rawKey = SecureBytes.random(count: 32)
        let fileSlot = try vault.addKeySlot(.keyFile(folder.file("k.key")))
        let keySlot = try vault.addKeySlot(.key(rawKey))
        let passphraseSlot = try vault.addKeySlot(.passphrase("second passphrase"))

        XCTAssertEqual(try vault.keySlots().map(\.kind), [.passphrase(.test), .keyFile, .key, .passphrase(.test)])
        for credential in [VaultCredential.keyFile(folder.file("k.key")), .key(rawKey), .passphrase("second passphrase")] {
            XCTAssertEqual(try open(credential).secret(for: id), Data("v".utf8))
        }

        try vault.removeKeySlot(id: 1)
        XCTAssertThrows(.wrongPassphrase, try self.open(.passphrase(testPassphrase)))
        XCTAssertNoThrow(try open(.passphrase("second passphrase")))
        try vault.removeKeySlot(id: fileSlot.id)
        try vault.removeKeySlot(id: keySlot.id)
        XCTAssertThrows(.wrongKey, try self.open(.key(rawKey)))
        XCTAssertThrows(.invalidArgument(reason: "cannot remove the last key slot"), try vault.removeKeySlot(id: passphraseSlot.id))
        XCTAssertThrows(.invalidArgument(reason: "no key slot 99"), try vault.removeKeySlot(id: 99))
    }

    /// Slots can be listed while locked; managing them needs the vault unlocked.
    func testSlotManagementNeedsUnlock() throws {
        _ = try folder.makeVault()
        let locked = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertEqual(try locked.keySlots().count, 1)
        XCTAssertThrows(.locked, try locked.addKeySlot(.key(.random(count: 32))))
        XCTAssertThrows(.locked, try locked.removeKeySlot(id: 1))
    }

    /// Rotating the vault key re-encrypts every item under new keys (every row key and record
    /// changes), keeps every slot working, and keeps the items readable.
    func testRotateVaultKey() throws {
        let vault = try folder.makeVault()
        try KeyFile.generate(at: folder.file("k.key"))
        try vault.addKeySlot(.keyFile(folder.file("k.key")))
        for index in 0..<20 { try vault.set(Data("v\(index)".utf8), for: .genericPassword(service: "s", account: "\(index)")) }
        let raw = try RawVaultFile(folder.file("test.vault"))
        let before = try raw.items()

        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase), .keyFile(folder.file("k.key"))])

        let after = try raw.items()
        XCTAssertEqual(after.count, 20)
        XCTAssertTrue(Set(after.map(\.rowKey)).isDisjoint(with: before.map(\.rowKey)))
        XCTAssertTrue(Set(after.map(\.record)).isDisjoint(with: before.map(\.record)))
        for credential in [VaultCredential.passphrase(testPassphrase), .keyFile(folder.file("k.key"))] {
            let reopened = try open(credential)
            for index in 0..<20 {
                XCTAssertEqual(try reopened.secret(for: .genericPassword(service: "s", account: "\(index)")), Data("v\(index)".utf8))
            }
        }
    }

    /// Rotation refuses to drop a slot it cannot rewrap, and changes nothing.
    func testRotationNeedsEverySlot() throws {
        let vault = try folder.makeVault()
        try KeyFile.generate(at: folder.file("k.key"))
        try vault.addKeySlot(.keyFile(folder.file("k.key")))
        try vault.set(Data("v".utf8), for: id)
        let before = try RawVaultFile(folder.file("test.vault")).items()
        XCTAssertThrows(
            .invalidArgument(reason: "key slot 2 (keyfile) is not opened by any credential given"),
            try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)]))
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().map(\.record), before.map(\.record))
        XCTAssertNoThrow(try open(.keyFile(folder.file("k.key"))))
    }

    /// Rotation refuses to run over an unreadable record, so nothing unrecoverable happens silently.
    func testRotationStopsAtTamperedRecord() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("v".utf8), for: id)
        let raw = try RawVaultFile(folder.file("test.vault"))
        var row = try XCTUnwrap(raw.items().first)
        row.record[5] ^= 1
        try raw.setRecord(row.record, at: row.rowKey)
        XCTAssertThrows(.integrityFailure, try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)]))
        XCTAssertEqual(try raw.items().first?.record, row.record)
        XCTAssertFalse(vault.isLocked)
    }

    /// New passphrase slots default to libsodium's MODERATE cost, stored with the slot.
    func testDefaultCostIsModerate() throws {
        let vault = try Vault.create(at: folder.file("default.vault"), with: .passphrase(testPassphrase))
        XCTAssertEqual(try vault.keySlots().map(\.kind), [.passphrase(.moderate)])
        let raw = try RawVaultFile(folder.file("default.vault"))
        let row = try XCTUnwrap(raw.rows("SELECT kdf, opslimit, memlimit, length(salt) FROM key_slots").first)
        XCTAssertEqual(row[0] as? String, "argon2id13")
        XCTAssertEqual(row[1] as? Int64, 3)
        XCTAssertEqual(row[2] as? Int64, 268_435_456)
        XCTAssertEqual(row[3] as? Int64, 16)
    }
}
