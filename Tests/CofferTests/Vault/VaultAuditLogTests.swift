import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The vault's audit log (docs/vault-format.md, 8.2): encrypted entries bound to their vault and
/// sequence, listed newest first, bounded to the newest 10,000, re-encrypted by a rotation.
final class VaultAuditLogTests: XCTestCase {
    let folder = TemporaryFolder()

    static func entry(_ second: Int, _ action: AuditEntry.Action = .read, decision: AuditEntry.Decision = .owner) -> AuditEntry {
        AuditEntry(time: Date(timeIntervalSince1970: TimeInterval(1_800_000_000 + second)), program: Program(executable: "/usr/bin/git"),
                   frontDoor: .agent, action: action, item: .genericPassword(service: "git", account: "ada"), decision: decision)
    }

    private func auditRows(_ url: URL) throws -> [(sequence: Int64, entry: [UInt8])] {
        try RawVaultFile(url).rows("SELECT sequence, entry FROM audit_log ORDER BY sequence").map { ($0[0] as! Int64, $0[1] as! [UInt8]) }
    }

    /// Entries come back as appended, newest first; `since` keeps those at or after a time and
    /// `limit` the newest; a vault opened afresh reads the same. Nothing of an entry is in the
    /// file in the clear.
    func testAppendAndRead() throws {
        let vault = try folder.makeVault()
        let entries = (0..<5).map { Self.entry($0, $0 == 3 ? .grant : .read, decision: $0 == 4 ? .denied : .owner) }
        for entry in entries { try vault.appendAudit(entry) }
        XCTAssertEqual(try vault.auditLog(), entries.reversed())
        XCTAssertEqual(try vault.auditLog(since: entries[2].time), entries[2...].reversed())
        XCTAssertEqual(try vault.auditLog(limit: 2), [entries[4], entries[3]])
        XCTAssertEqual(try vault.auditLog(since: entries[1].time, limit: 10).count, 4)
        let again = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try again.auditLog(), entries.reversed())
        XCTAssertEqual(try auditRows(folder.file("test.vault")).map(\.sequence), [1, 2, 3, 4, 5])
        let file = try Data(contentsOf: folder.file("test.vault"))
        for text in ["/usr/bin/git", "ada", "grant", "denied"] {
            XCTAssertNil(file.range(of: Data(text.utf8)), text)
        }
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// An append commits without an fsync (`synchronous = NORMAL`) and puts the vault's own
    /// setting back at once: inside the append the connection runs NORMAL, and before and after
    /// it, and after several appends in a row, every other write is FULL (fsynced).
    func testAnAppendLeavesEveryOtherWriteDurable() throws {
        let vault = try folder.makeVault()
        func synchronous() throws -> Int64? { try vault.withConnection { connection throws(CofferError) in try connection.integer("PRAGMA synchronous") } }
        XCTAssertEqual(try synchronous(), 2, "FULL before")
        let during = try vault.withConnection { connection throws(CofferError) in
            try connection.withoutSyncOnCommit { () throws(CofferError) in try connection.integer("PRAGMA synchronous") }
        }
        XCTAssertEqual(during, 1, "NORMAL for the append")
        for second in 0..<3 { try vault.appendAudit(Self.entry(second)) }
        XCTAssertEqual(try synchronous(), 2, "FULL again after the appends")
    }

    /// The log keeps the newest 10,000 entries: appending past that deletes the oldest in the same
    /// transaction, and the sequence goes on counting.
    func testLogIsBounded() throws {
        let vault = try folder.makeVault()
        try vault.fillAuditLog(sequences: 1...9_999, with: Self.entry(0))
        try vault.appendAudit(Self.entry(1))
        XCTAssertEqual(try auditRows(folder.file("test.vault")).count, 10_000)
        try vault.appendAudit(Self.entry(2))
        try vault.appendAudit(Self.entry(3))
        let sequences = try auditRows(folder.file("test.vault")).map(\.sequence)
        XCTAssertEqual(sequences.count, 10_000)
        XCTAssertEqual(sequences.first, 3)
        XCTAssertEqual(sequences.last, 10_002)
        XCTAssertEqual(try vault.auditLog(limit: 3), [Self.entry(3), Self.entry(2), Self.entry(1)])
    }

    /// Entries swapped between rows, an entry copied from another vault, an entry over the size
    /// limit and an entry whose plaintext breaks the rules (sealed with the vault's own key) are
    /// each skipped, and `verify` names each by its sequence; the other entries still read.
    func testTamperedEntriesAreSkippedAndReported() throws {
        let vault = try folder.makeVault()
        for second in 0..<6 { try vault.appendAudit(Self.entry(second)) }
        let other = try folder.makeVault("other.vault")
        try other.appendAudit(Self.entry(99))
        let rows = try auditRows(folder.file("test.vault"))
        let raw = try RawVaultFile(folder.file("test.vault"))
        func put(_ entry: [UInt8], at sequence: Int64) throws {
            _ = try raw.rows("UPDATE audit_log SET entry = ?1 WHERE sequence = \(sequence)", [entry])
        }
        try put(rows[1].entry, at: 2)
        try put(rows[0].entry, at: 2)
        try put(rows[1].entry, at: 1)
        try put(try auditRows(folder.file("other.vault"))[0].entry, at: 3)
        try put([UInt8](repeating: 0, count: VaultFormat.maxSealedAuditEntryBytes + 1), at: 4)
        try vault.forgeAuditEntry(RecordForgery.malformedAuditEntries[0].bytes, sequence: 5)
        XCTAssertEqual(try vault.auditLog(), [Self.entry(5)])
        XCTAssertEqual(try vault.verify().problems, (1...5).map { .unreadableAuditEntry(sequence: $0) })
    }

    /// Rotating the vault key re-encrypts every entry that opens (they read afterwards, and none
    /// keeps its old bytes) and leaves an entry that does not open as it was.
    func testRotationReencryptsTheLog() throws {
        let vault = try folder.makeVault()
        for second in 0..<3 { try vault.appendAudit(Self.entry(second)) }
        let before = try auditRows(folder.file("test.vault"))
        var broken = before[0].entry
        broken[30] ^= 1
        _ = try RawVaultFile(folder.file("test.vault")).rows("UPDATE audit_log SET entry = ?1 WHERE sequence = 1", [broken])
        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)])
        XCTAssertEqual(try vault.auditLog(), [Self.entry(2), Self.entry(1)])
        let after = try auditRows(folder.file("test.vault"))
        XCTAssertEqual(after[0].entry, broken)
        XCTAssertNotEqual(after[1].entry, before[1].entry)
        XCTAssertNotEqual(after[2].entry, before[2].entry)
        XCTAssertEqual(try vault.verify().problems, [.unreadableAuditEntry(sequence: 1)])
    }

    /// Appending migrates a version 2 vault to version 3 (the log lives there); reading the log of
    /// a version 2 vault gives nothing and changes nothing.
    func testAppendingMigratesAnOlderVault() throws {
        let copy = try VaultFixtureV2Tests.copyFixture(into: folder)
        let vault = try Vault.open(at: copy, unlock: .passphrase(VaultFixtureV2Tests.passphrase))
        let before = try Data(contentsOf: copy)
        XCTAssertEqual(try vault.auditLog(), [])
        XCTAssertEqual(try Data(contentsOf: copy), before)
        try vault.appendAudit(Self.entry(1))
        XCTAssertEqual(try RawVaultFile(copy).rows("PRAGMA user_version").first?.first as? Int64, 3)
        XCTAssertEqual(try vault.auditLog(), [Self.entry(1)])
        XCTAssertEqual(try vault.accessPolicy(), .open)
    }

    /// An entry the format cannot hold is refused before anything is written.
    func testInvalidEntryIsRefused() throws {
        let vault = try folder.makeVault()
        var entry = Self.entry(0)
        entry.decision = .init(rawValue: "No")
        XCTAssertThrowsError(try vault.appendAudit(entry))
        XCTAssertEqual(try auditRows(folder.file("test.vault")).count, 0)
    }

    /// An appended entry survives its process being killed (SIGKILL) at once: the append returns
    /// only after its commit.
    func testAppendSurvivesKill9() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        _ = try folder.makeVault(credential: .keyFile(folder.file("k.key")))
        let helper = BuiltProducts.executable("coffer-test-helper").path
        let writer = try ChildProcess.start(helper, ["audit-then-wait", folder.file("test.vault").path, folder.file("k.key").path])
        XCTAssertTrue(writer.waitForLine("appended", timeout: .seconds(60)))
        writer.kill(SIGKILL)
        XCTAssertEqual(try writer.wait(timeout: .seconds(10)).status, 128 + SIGKILL)
        let vault = try Vault.open(at: folder.file("test.vault"), unlock: .keyFile(folder.file("k.key")), configuration: .test())
        XCTAssertEqual(try vault.auditLog().map(\.item), [.genericPassword(service: "com.example.audit", account: "survivor")])
        XCTAssertTrue(try vault.verify().isClean)
    }
}

extension Vault {
    /// Seals `entry` under the vault's key at each sequence, in one transaction: for filling a log fast.
    func fillAuditLog(sequences: ClosedRange<Int64>, with entry: AuditEntry) throws {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                for sequence in sequences { try forgeAuditEntry(entry.encoded, sequence: sequence, connection, keys) }
            }
        }
    }

    /// Seals `plaintext` as the entry at `sequence`, with the vault's own key: for testing what readers accept.
    func forgeAuditEntry(_ plaintext: [UInt8], sequence: Int64) throws {
        try withUnlockedKeys { connection, keys throws(CofferError) in try forgeAuditEntry(plaintext, sequence: sequence, connection, keys) }
    }

    private func forgeAuditEntry(_ plaintext: [UInt8], sequence: Int64, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: VaultFormat.auditAssociatedData(vaultID: vaultID, sequence: sequence))
        try connection.with("INSERT OR REPLACE INTO audit_log (sequence, entry) VALUES (?1, ?2)") { statement throws(CofferError) in
            try statement.bind(.integer(sequence), .blob(sealed))
            try statement.run()
        }
    }
}
