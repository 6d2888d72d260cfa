import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// `Vault.verify()` finds every kind of damage, by record, where a point lookup cannot.
final class VaultVerificationTests: XCTestCase {
    let folder = TemporaryFolder()

    private func filledVault(_ count: Int = 20) throws -> Vault {
        let vault = try folder.makeVault()
        for index in 0..<count {
            try vault.set(Data("secret-\(index)".utf8), for: .genericPassword(service: "s", account: "\(index)"))
        }
        return vault
    }

    /// A sound vault, expired items included, verifies clean and counts every record.
    func testSoundVaultIsClean() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("a".utf8), for: .genericPassword(service: "s", account: "a"))
        try vault.set(Data("b".utf8), for: .genericPassword(service: "s", account: "b"), options: ItemOptions(expiresAt: clock.now.addingTimeInterval(1)))
        clock.advance(by: 10)
        let report = try vault.verify()
        XCTAssertTrue(report.isClean, "\(report.problems)")
        XCTAssertEqual(report.soundRecords, 2)
    }

    /// A damaged row key hides an item from a point lookup, which then reports it missing
    /// (the limit docs/security.md states); verify reports that record, and the item's two index
    /// rows, which still name the row key it had.
    func testDamagedRowKeyIsFoundByVerifyNotByLookup() throws {
        let vault = try filledVault()
        let raw = try RawVaultFile(folder.file("test.vault"))
        let row = try XCTUnwrap(raw.items().first)
        var damaged = row.rowKey
        damaged[0] ^= 0x40
        _ = try raw.rows("UPDATE items SET row_key = ?1 WHERE row_key = ?2", [damaged, row.rowKey])

        let missing = try (0..<20).filter { try vault.secret(for: .genericPassword(service: "s", account: "\($0)")) == nil }
        XCTAssertEqual(missing.count, 1, "one item now reads as absent")
        let report = try vault.verify()
        XCTAssertEqual(report.problems, [
            .unreadableRecord(rowKey: VaultFormat.hexIdentifier(Array(damaged.prefix(8)))), .attributeIndex(missingRows: 0, staleRows: 2),
        ])
        XCTAssertEqual(report.soundRecords, 19)
    }

    /// Each kind of record problem is reported as such, in row-key order.
    func testRecordProblemsByKind() throws {
        let vault = try filledVault(3)
        try vault.forgeRecord(RecordForgery.malformedPlaintexts[0].plaintext, for: .genericPassword(service: "m", account: "1"))
        try vault.forgeRecord(RecordForgery.plaintext(), for: .genericPassword(service: "s", account: "a"), rowOf: .genericPassword(service: "x", account: "y"))
        let raw = try RawVaultFile(folder.file("test.vault"))
        let flipped = try XCTUnwrap(try raw.items().first { row in
            try vault.withUnlockedKeys { _, keys in keys.rowKey(for: .genericPassword(service: "s", account: "0")) } == row.rowKey
        })
        var record = flipped.record
        record[record.count - 1] ^= 1
        try raw.setRecord(record, at: flipped.rowKey)

        let report = try vault.verify()
        let kinds = report.problems.map { problem -> String in
            switch problem {
            case .unreadableRecord: "unreadable"
            case .malformedRecord: "malformed"
            case .misplacedRecord(_, let item): "misplaced \(item.service)/\(item.account)"
            default: "other: \(problem)"
            }
        }
        XCTAssertEqual(Set(kinds), ["unreadable", "malformed", "misplaced s/a"])
        XCTAssertEqual(report.soundRecords, 2)
    }

    /// Damage to a b-tree page is found by SQLite's integrity check and reported as a database problem.
    func testPageDamageIsADatabaseProblem() throws {
        do {
            let vault = try filledVault(200)
            _ = vault
        }
        let url = folder.file("test.vault")
        var bytes = try Data(contentsOf: url)
        XCTAssertGreaterThan(bytes.count, 4096 * 4)
        // Overwrite the middle of the last page (an items b-tree page) with garbage.
        let page = bytes.count / 4096 - 1
        for offset in (page * 4096 + 8)..<(page * 4096 + 2048) { bytes[offset] = 0xA5 }
        try bytes.write(to: url)
        let vault = try Vault.open(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        let report = try vault.verify()
        XCTAssertFalse(report.isClean)
        XCTAssertTrue(report.problems.contains { if case .database = $0 { true } else { false } }, "\(report.problems)")
    }

    /// Verifying needs the keys: a locked vault throws `locked`, never a clean report.
    func testLockedVaultCannotBeVerified() throws {
        _ = try folder.makeVault()
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertThrows(.locked, try vault.verify())
    }
}
