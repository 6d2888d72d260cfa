import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// `Vault.readAudited`: an item, its access and the policy read, and the decision's audit entry
/// written, in one transaction; nothing written when there is nothing to decide or no decision.
final class VaultAuditedReadTests: XCTestCase {
    let folder = TemporaryFolder()
    let clock = TestClock.wholeSecond()
    let id = ItemID.genericPassword(service: "git", account: "ada")
    let git = Program(executable: "/usr/bin/git")

    private func entry(_ decision: AuditEntry.Decision) -> AuditEntry {
        AuditEntry(time: clock.now, program: git, frontDoor: .agent, action: .read, item: id, decision: decision)
    }

    private func auditRowCount() throws -> Int {
        try RawVaultFile(folder.file("test.vault")).rows("SELECT sequence FROM audit_log").count
    }

    /// A decided read returns the item and commits its entry; `deciding` is given the item's
    /// owner and access list and the vault's policy.
    func testADecidedReadReturnsTheItemAndCommitsItsEntry() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.setAccessPolicy(.confirm)
        try vault.set(Data("s3cret".utf8), for: id, owner: git)
        var seen: (ItemAccess, AccessPolicy)?
        let read = try vault.readAudited(id) { access, policy in
            seen = (access, policy)
            return entry(.owner)
        }
        guard case .recorded(let item) = read else { return XCTFail("expected a recorded read, got \(read)") }
        XCTAssertEqual(item.secret, Data("s3cret".utf8))
        XCTAssertEqual(item.attributes.id, id)
        XCTAssertEqual(seen?.0.owner, git)
        XCTAssertEqual(seen?.1, .confirm)
        XCTAssertEqual(try vault.auditLog(), [entry(.owner)])
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// With no entry from `deciding` (the person must be asked), the item and its access come
    /// back and nothing is written; an absent item is never given to `deciding`.
    func testNoDecisionAndNoItemWriteNothing() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("s3cret".utf8), for: id, owner: git)
        let undecided = try vault.readAudited(id) { _, _ in nil }
        guard case .undecided(let item, let access) = undecided else { return XCTFail("expected an undecided read, got \(undecided)") }
        XCTAssertEqual(item.secret, Data("s3cret".utf8))
        XCTAssertEqual(access.owner, git)
        let absent = try vault.readAudited(.genericPassword(service: "git", account: "nobody")) { _, _ in
            XCTFail("no item to decide on")
            return entry(.owner)
        }
        guard case .absent = absent else { return XCTFail("expected absent, got \(absent)") }
        XCTAssertEqual(try auditRowCount(), 0)
    }

    /// An expired item reads as absent, is purged, and nothing is logged.
    func testAnExpiredItemIsAbsentAndPurged() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("t".utf8), for: id, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(10)))
        clock.advance(by: 10)
        let read = try vault.readAudited(id) { _, _ in entry(.owner) }
        guard case .absent = read else { return XCTFail("expected absent, got \(read)") }
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().count, 0)
        XCTAssertEqual(try auditRowCount(), 0)
    }

    /// An entry the format cannot hold fails the read, with nothing written; the connection is
    /// back to fsynced commits afterwards, as after a read that logged.
    func testAnInvalidEntryFailsTheReadAndWritesNothing() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("s3cret".utf8), for: id, owner: git)
        var invalid = entry(.owner)
        invalid.decision = .init(rawValue: "No")
        XCTAssertThrowsError(try vault.readAudited(id) { _, _ in invalid })
        XCTAssertEqual(try auditRowCount(), 0)
        _ = try vault.readAudited(id) { _, _ in entry(.owner) }
        let synchronous = try vault.withConnection { connection throws(CofferError) in try connection.integer("PRAGMA synchronous") }
        XCTAssertEqual(synchronous, 2, "FULL after the read")
        XCTAssertEqual(try vault.auditLog(), [entry(.owner)])
    }

    /// A version 2 vault (no policy yet) is decided under `open`, and migrated to version 3 when
    /// the entry is written; a read with no decision leaves its file as it was.
    func testAnOlderVaultIsOpenAndMigratedWhenAnEntryIsWritten() throws {
        let copy = try VaultFixtureV2Tests.copyFixture(into: folder)
        let vault = try Vault.open(at: copy, unlock: .passphrase(VaultFixtureV2Tests.passphrase))
        guard let stored = try vault.items(matching: .all).first?.id else { return XCTFail("the fixture has items") }
        let before = try Data(contentsOf: copy)
        _ = try vault.readAudited(stored) { _, _ in nil }
        XCTAssertEqual(try Data(contentsOf: copy), before)
        var policy: AccessPolicy?
        let read = try vault.readAudited(stored) { _, seen in
            policy = seen
            return entry(.open)
        }
        guard case .recorded = read else { return XCTFail("expected a recorded read, got \(read)") }
        XCTAssertEqual(policy, .open)
        XCTAssertEqual(try RawVaultFile(copy).rows("PRAGMA user_version").first?.first as? Int64, 3)
        XCTAssertEqual(try vault.auditLog(), [entry(.open)])
    }
}
