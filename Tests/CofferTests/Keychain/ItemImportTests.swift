import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// ItemImport copies what the destination lacks, and never deletes or silently overwrites.
final class ItemImportTests: XCTestCase {
    private let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))

    private func item(_ account: String, _ secret: String, label: String? = nil, expiresAt: Date? = nil) -> Item {
        Item(
            attributes: ItemAttributes(
                id: .genericPassword(service: "mail", account: account), label: label, comment: "from elsewhere", custom: ["team": "ops"],
                created: clock.now, modified: clock.now, expiresAt: expiresAt),
            secret: Data(secret.utf8))
    }

    func testCopiesWhatIsMissingWithItsAttributesAndSkipsTheRest() throws {
        let destination = InMemoryStore(now: { [clock] in clock.now })
        try destination.set(Data("same".utf8), for: .genericPassword(service: "mail", account: "same"), options: ItemOptions())
        try destination.set(Data("vault's".utf8), for: .genericPassword(service: "mail", account: "differs"), options: ItemOptions())
        let offered = [
            item("new", "n3w", label: "New", expiresAt: clock.now.addingTimeInterval(3600)), item("same", "same"),
            item("differs", "keyring's"), item("old", "0ld", expiresAt: clock.now.addingTimeInterval(-1)),
        ]
        let report = try ItemImport.copy(offered, into: destination, now: clock.now)
        XCTAssertEqual(report.entries.map(\.outcome), [.copied, .unchanged, .conflict, .expired])

        let copied = try XCTUnwrap(try destination.item(for: .genericPassword(service: "mail", account: "new")))
        XCTAssertEqual(copied.secret, Data("n3w".utf8))
        XCTAssertEqual(copied.attributes.label, "New")
        XCTAssertEqual(copied.attributes.comment, "from elsewhere")
        XCTAssertEqual(copied.attributes.custom, ["team": "ops"])
        XCTAssertEqual(copied.attributes.expiresAt, clock.now.addingTimeInterval(3600))
        XCTAssertEqual(try destination.secret(for: .genericPassword(service: "mail", account: "differs")), Data("vault's".utf8))
        XCTAssertNil(try destination.secret(for: .genericPassword(service: "mail", account: "old")))

        let again = try ItemImport.copy(offered, into: destination, now: clock.now)
        XCTAssertEqual(again.count(.copied), 0, "a second run copies nothing")
        XCTAssertEqual(again.entries.map(\.outcome), [.unchanged, .unchanged, .conflict, .expired])
    }

    func testReplacingTakesTheOfferedSecretOnAConflict() throws {
        let destination = InMemoryStore(now: { [clock] in clock.now })
        try destination.set(Data("vault's".utf8), for: .genericPassword(service: "mail", account: "differs"), options: ItemOptions())
        let report = try ItemImport.copy([item("differs", "keyring's")], into: destination, replacing: true, now: clock.now)
        XCTAssertEqual(report.entries.map(\.outcome), [.copied])
        XCTAssertEqual(try destination.secret(for: .genericPassword(service: "mail", account: "differs")), Data("keyring's".utf8))
    }
}
