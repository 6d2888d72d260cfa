import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// Items know their owner (format version 3, docs/vault-format.md 5.5): the owner and access list
/// are stored in the record, survive reopening the file, and only grant and revoke change them.
final class VaultItemAccessTests: XCTestCase {
    let folder = TemporaryFolder()
    let id = ItemID.genericPassword(service: "mail", account: "ada")
    let mailer = Program(executable: "/usr/bin/mailer", executableDigest: SamplePrograms.digest, executablePinned: true)
    let intruder = Program(executable: "/home/ada/.local/bin/intruder")
    let backup = Program(executable: "/usr/bin/python3", script: "/opt/backup/run.py", unit: "backup.service")

    private func reopened() throws -> Vault {
        try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
    }

    /// A new item gets the owner it is set with; rewriting it with another owner keeps the first
    /// owner and the access list, and changes the secret and attributes. All of it is read back
    /// from the file by a vault opened afresh.
    func testOwnerRoundTripAndRewriteKeepsIt() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("one".utf8), for: id, options: ItemOptions(label: "Mail"), owner: mailer)
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: mailer))
        XCTAssertTrue(try vault.grant(backup, to: id))
        try vault.set(Data("two".utf8), for: id, options: ItemOptions(label: "Mail 2"), owner: intruder)
        let again = try reopened()
        XCTAssertEqual(try again.access(for: id), ItemAccess(owner: mailer, allowed: [backup]))
        let (item, access) = try XCTUnwrap(try again.itemWithAccess(for: id))
        XCTAssertEqual(item.secret, Data("two".utf8))
        XCTAssertEqual(item.attributes.label, "Mail 2")
        XCTAssertEqual(access.owner, mailer)
        XCTAssertNil(try again.access(for: .genericPassword(service: "absent", account: "x")))
    }

    /// The public `set` (what `Keychain` and every app call) records this process's program as a
    /// new item's owner; the Secret Service provider's `store` does the same by default.
    func testPublicSetRecordsTheCurrentProgram() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("v".utf8), for: id)
        let current = try XCTUnwrap(Program.current())
        XCTAssertEqual(try vault.access(for: id)?.owner, current)
        let other = ItemID.newAttributeItem()
        try vault.store(Data("v".utf8), for: other, options: ItemOptions())
        XCTAssertEqual(try vault.access(for: other)?.owner, current)
        XCTAssertEqual(try vault.storedItems(matching: .all).map(\.access.owner), [current, current])
    }

    /// Granting adds a program (a grant with a pin replaces the same program's entry), revoking
    /// removes every entry for it; the owner stays. Neither changes the item's dates, secret,
    /// attributes or index rows, and the vault verifies clean.
    func testGrantAndRevoke() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("s".utf8), for: id, options: ItemOptions(custom: ["team": "blue"]), owner: mailer)
        let before = try XCTUnwrap(try vault.item(for: id))
        clock.advance(by: 60)
        XCTAssertTrue(try vault.grant(backup, to: id))
        XCTAssertFalse(try vault.grant(backup, to: id), "already there")
        let pinnedBackup = Program(
            executable: "/usr/bin/python3", script: "/opt/backup/run.py", scriptDigest: SamplePrograms.digest, scriptPinned: true,
            unit: "backup.service")
        XCTAssertTrue(try vault.grant(pinnedBackup, to: id))
        XCTAssertTrue(try vault.grant(intruder, to: id))
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: mailer, allowed: [pinnedBackup, intruder]))
        XCTAssertEqual(try vault.item(for: id), before, "dates, secret and attributes unchanged")
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "blue"]).map(\.attributes.id), [id])
        XCTAssertTrue(try vault.verify().isClean)

        XCTAssertTrue(try vault.revoke(backup, from: id), "revoking names the program, whatever its pins")
        XCTAssertFalse(try vault.revoke(backup, from: id))
        XCTAssertFalse(try vault.revoke(mailer, from: id), "the owner is not on the list")
        XCTAssertEqual(try reopened().access(for: id), ItemAccess(owner: mailer, allowed: [intruder]))
        XCTAssertEqual(try vault.item(for: id), before)
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// Granting to or revoking from an absent or expired item throws itemNotFound; an access list
    /// holds at most 64 programs; an invalid program is refused; none of these writes anything.
    func testGrantLimits() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        XCTAssertThrows(.itemNotFound, try vault.grant(self.backup, to: self.id))
        XCTAssertThrows(.itemNotFound, try vault.revoke(self.backup, from: self.id))
        let brief = ItemID.genericPassword(service: "brief", account: "a")
        try vault.set(Data("b".utf8), for: brief, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(5)), owner: mailer)
        clock.advance(by: 10)
        XCTAssertThrows(.itemNotFound, try vault.grant(self.backup, to: brief))

        try vault.set(Data("s".utf8), for: id, owner: mailer)
        for index in 0..<ItemAccess.maxAllowed { try vault.grant(Program(executable: "/p\(index)"), to: id) }
        XCTAssertThrowsError(try vault.grant(Program(executable: "/one-more"), to: id))
        XCTAssertEqual(try vault.access(for: id)?.allowed.count, ItemAccess.maxAllowed)
        // A program the encoding cannot hold is never made, so never granted or stored.
        XCTAssertThrowsError(try Program(executablePath: []))
        XCTAssertThrowsError(try Program(executablePath: Array("/b".utf8), executablePinned: true))
    }

    /// `set(_:for:options:owner:allowing:)` (`coffer set --allow`) stores a new item with its
    /// owner and the programs given; on an existing item it keeps the owner and the list, adds
    /// the new programs (returning those that changed it) and stores the new secret. A list
    /// that would pass 64 programs is refused and nothing is written, secret included.
    func testSetAllowingSeedsTheListInOneWrite() throws {
        let vault = try folder.makeVault()
        XCTAssertEqual(try vault.set(Data("one".utf8), for: id, owner: mailer, allowing: [backup, intruder, backup]), [backup, intruder])
        XCTAssertEqual(try reopened().access(for: id), ItemAccess(owner: mailer, allowed: [backup, intruder]))
        let other = Program(executable: "/usr/bin/other")
        XCTAssertEqual(try vault.set(Data("two".utf8), for: id, owner: intruder, allowing: [backup, other]), [other])
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: mailer, allowed: [backup, intruder, other]))
        XCTAssertEqual(try vault.secret(for: id), Data("two".utf8))

        let many = (0..<ItemAccess.maxAllowed).map { Program(executable: "/p\($0)") }
        XCTAssertThrowsError(try vault.set(Data("three".utf8), for: id, owner: mailer, allowing: many))
        XCTAssertEqual(try vault.secret(for: id), Data("two".utf8), "nothing written")
        XCTAssertEqual(try vault.access(for: id)?.allowed.count, 3)
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// `setOwned` (how the agent keeps a brokered login): new items are the owner's, each with its
    /// own `allowing` list; the owner replaces or removes them, their lists as they were whatever
    /// `allowing` says; when one item is another program's, or nobody's, nothing of the write
    /// lands and nothing is removed.
    func testSetOwnedReplacesOnlyTheOwnersItems() throws {
        let vault = try folder.makeVault()
        let session = ItemID.genericPassword(service: "coffer.openid", account: "work session")
        let settings = ItemID.genericPassword(service: "coffer.openid", account: "work")
        try vault.setOwned([(session, Data("s1".utf8), ItemOptions(), []), (settings, Data("c1".utf8), ItemOptions(), [backup])], by: mailer)
        XCTAssertEqual(try vault.access(for: session), ItemAccess(owner: mailer))
        XCTAssertEqual(try vault.access(for: settings), ItemAccess(owner: mailer, allowed: [backup]))

        try vault.setOwned([(session, Data("s2".utf8), ItemOptions(), []), (settings, Data("c2".utf8), ItemOptions(), [intruder])], by: mailer)
        XCTAssertEqual(try vault.secret(for: settings), Data("c2".utf8))
        XCTAssertEqual(try vault.access(for: settings), ItemAccess(owner: mailer, allowed: [backup]), "a replacement widens no list")

        for stranger in [intruder, backup, nil] as [Program?] {
            XCTAssertThrowsError(
                try vault.setOwned([(session, Data("s3".utf8), ItemOptions(), []), (settings, Data("c3".utf8), ItemOptions(), [])], by: stranger)
            ) { XCTAssertEqual(($0 as? CofferError).map { if case .accessDenied = $0 { true } else { false } }, true, "\($0)") }
        }
        XCTAssertEqual(try vault.secret(for: session), Data("s2".utf8), "the first item of a refused write is not written either")
        XCTAssertEqual(try vault.secret(for: settings), Data("c2".utf8))

        // A new session another program made first: refused, and the old session it was to
        // replace is not removed either (one transaction).
        let squatted = ItemID.genericPassword(service: "coffer.openid", account: "work other-client")
        try vault.set(Data("squat".utf8), for: squatted, owner: intruder)
        XCTAssertThrowsError(
            try vault.setOwned([(squatted, Data("s4".utf8), ItemOptions(), []), (settings, Data("c4".utf8), ItemOptions(), [])], removing: [session], by: mailer))
        XCTAssertEqual(try vault.secret(for: session), Data("s2".utf8), "the old session stays when the new login is refused")
        XCTAssertThrowsError(try vault.setOwned([], removing: [squatted], by: mailer), "another's item is not removed")
        try vault.setOwned([(settings, Data("c5".utf8), ItemOptions(), [])], removing: [session], by: mailer)
        XCTAssertNil(try vault.secret(for: session), "the owner's own item is removed")

        let unowned = ItemID.genericPassword(service: "coffer.openid", account: "old")
        try vault.set(Data("o".utf8), for: unowned, owner: nil)
        XCTAssertThrowsError(try vault.setOwned([(unowned, Data("x".utf8), ItemOptions(), [])], by: mailer), "an item with no owner is nobody's to replace")
        XCTAssertEqual(try vault.secret(for: unowned), Data("o".utf8))
    }

    /// An item that has expired is gone: setting it anew gives it the new owner and an empty list.
    /// An item whose record no longer opens is replaced as a new one too.
    func testAnExpiredOrUnreadableItemIsReplacedAsNew() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("old".utf8), for: id, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(5)), owner: mailer)
        try vault.grant(backup, to: id)
        clock.advance(by: 10)
        try vault.set(Data("new".utf8), for: id, owner: intruder)
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: intruder))

        let raw = try RawVaultFile(folder.file("test.vault"))
        let rowKey = try vault.rowKey(for: id)
        var record = try XCTUnwrap(try raw.items().first { $0.rowKey == rowKey }?.record)
        record[record.count - 1] ^= 1
        try raw.setRecord(record, at: rowKey)
        try vault.set(Data("again".utf8), for: id, owner: mailer)
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: mailer))
    }

    /// Moving an item to new names (the Secret Service's attribute change) keeps its owner and
    /// access list, whatever owner the provider's store would give a new item.
    func testMoveKeepsAccess() throws {
        let vault = try folder.makeVault()
        let old = ItemID.newAttributeItem()
        let row = try vault.store(Data("s".utf8), for: old, options: ItemOptions(custom: ["k": "v"]), owner: mailer)
        try vault.grant(backup, to: old)
        let moved = try vault.move(from: row, to: id, secret: Data("s".utf8), options: ItemOptions())
        XCTAssertNotNil(try vault.storedItem(atRowKey: moved))
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: mailer, allowed: [backup]))
        try vault.store(Data("t".utf8), for: id, options: ItemOptions(), owner: intruder)
        XCTAssertEqual(try vault.access(for: id)?.owner, mailer)
    }

    /// A move never lands on another live item: renaming the intruder's own item to the names of
    /// the mailer's item is refused, and both items keep their secrets and owners (before, the
    /// mailer's item was replaced and its row given the intruder as owner). Onto an expired item
    /// the move goes ahead, as a store would.
    func testMoveOntoAnotherLiveItemIsRefused() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.store(Data("mailer's".utf8), for: id, options: ItemOptions(), owner: mailer)
        let planted = ItemID.newAttributeItem()
        let row = try vault.store(Data("planted".utf8), for: planted, options: ItemOptions(custom: ["k": "v"]), owner: intruder)
        XCTAssertThrows(
            .invalidArgument(reason: "another item already has these names"),
            try vault.move(from: row, to: id, secret: Data("planted".utf8), options: ItemOptions()))
        XCTAssertEqual(try vault.secret(for: id), Data("mailer's".utf8))
        XCTAssertEqual(try vault.access(for: id)?.owner, mailer)
        XCTAssertEqual(try vault.storedItem(atRowKey: row)?.secret, Data("planted".utf8))
        XCTAssertEqual(try vault.access(for: planted)?.owner, intruder)

        let expiring = ItemID.genericPassword(service: "expiring.example", account: "ada")
        try vault.store(Data("old".utf8), for: expiring, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(30)), owner: mailer)
        clock.advance(by: 60)
        let moved = try vault.move(from: row, to: expiring, secret: Data("planted".utf8), options: ItemOptions())
        XCTAssertEqual(try vault.storedItem(atRowKey: moved)?.secret, Data("planted".utf8))
    }

    /// An item from before version 3 (a record without owner fields) has no owner, and keeps
    /// none when it is rewritten or granted to: the writer decides nothing about an existing
    /// item's ownership.
    func testUnownedItemsStayUnowned() throws {
        let vault = try folder.makeVault()
        try vault.forgeRecord(RecordForgery.plaintext(service: id.service, account: id.account), for: id)
        XCTAssertEqual(try vault.access(for: id), .unowned)
        try vault.set(Data("new".utf8), for: id, owner: mailer)
        XCTAssertEqual(try vault.access(for: id), .unowned)
        try vault.grant(backup, to: id)
        XCTAssertEqual(try vault.access(for: id), ItemAccess(owner: nil, allowed: [backup]))
    }

    /// Listing items with their access (what `coffer access show` and a strict listing read)
    /// gives each item's owner and list, through every path a query takes: by name, by the
    /// attribute index, and by a scan.
    func testListingWithAccess() throws {
        let vault = try folder.makeVault()
        let other = ItemID.genericPassword(service: "mail", account: "bob")
        try vault.set(Data("1".utf8), for: id, options: ItemOptions(custom: ["team": "blue"]), owner: mailer)
        try vault.set(Data("2".utf8), for: other, owner: intruder)
        try vault.grant(backup, to: other)
        let all = try vault.storedItems(matching: .all)
        XCTAssertEqual(all.map(\.attributes.id), [id, other])
        XCTAssertEqual(all.map(\.access), [ItemAccess(owner: mailer), ItemAccess(owner: intruder, allowed: [backup])])
        XCTAssertEqual(try vault.storedItems(matching: ItemQuery(custom: ["team": "blue"])).map(\.access.owner), [mailer])
        XCTAssertEqual(try vault.storedItems(matching: ItemQuery(itemClass: .genericPassword, service: "mail", account: "bob")).map(\.access.owner), [intruder])
        XCTAssertEqual(try vault.storedItems(matching: ItemQuery(service: "mail")).map(\.access.owner), [mailer, intruder], "a scan")
    }
}
