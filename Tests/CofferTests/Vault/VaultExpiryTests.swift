import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultExpiryTests: XCTestCase {
    let folder = TemporaryFolder()
    let clock = TestClock.wholeSecond()
    let id = ItemID.genericPassword(service: "s", account: "token")

    /// An item is readable until its expiry; from then on it reads as absent everywhere and its row
    /// is purged from the file.
    func testExpiredItemsReadAsAbsentAndArePurged() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("t".utf8), for: id, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(60)))
        try vault.set(Data("keep".utf8), for: .genericPassword(service: "s", account: "other"))
        clock.advance(by: 59)
        XCTAssertEqual(try vault.secret(for: id), Data("t".utf8))
        clock.advance(by: 1)
        XCTAssertNil(try vault.secret(for: id))
        XCTAssertNil(try vault.item(for: id))
        XCTAssertEqual(try vault.items(matching: .all).map(\.id.account), ["other"])
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().count, 1)
    }

    /// Listing purges expired items too, and setting an expired item anew starts it fresh.
    func testQueriesPurgeAndSetRestarts() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("t".utf8), for: id, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(10)))
        clock.advance(by: 20)
        XCTAssertEqual(try vault.items(matching: .all).count, 0)
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().count, 0)
        try vault.set(Data("u".utf8), for: id)
        XCTAssertEqual(try vault.item(for: id)?.attributes.created, clock.now)
    }

    /// An item set with an expiry already past is absent at once.
    func testPastExpiry() throws {
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("t".utf8), for: id, options: ItemOptions(expiresAt: clock.now.addingTimeInterval(-1)))
        XCTAssertNil(try vault.secret(for: id))
    }
}
