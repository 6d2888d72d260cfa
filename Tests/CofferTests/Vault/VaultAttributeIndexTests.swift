import CofferTestSupport
import Foundation
import XCTest
@_spi(Benchmarks) @testable import Coffer

/// The attribute index of format version 2 (docs/vault-format.md, 5.4) and the migration from
/// version 1 (7.1).
final class VaultAttributeIndexTests: XCTestCase {
    let folder = TemporaryFolder()

    private func indexRows(_ url: URL) throws -> Int64? {
        try RawVaultFile(url).rows("SELECT count(*) FROM attribute_index").first?.first as? Int64
    }

    private func userVersion(_ url: URL) throws -> Int64? {
        try RawVaultFile(url).rows("PRAGMA user_version").first?.first as? Int64
    }

    /// A search goes through the index, not a scan: an item whose index rows are deleted by hand
    /// is no longer found by attribute (though a read by name still finds it), and a forged row
    /// that points a token at another item adds nothing, since every candidate is checked.
    func testSearchReadsOnlyWhatTheIndexNames() throws {
        let vault = try folder.makeVault()
        let shown = ItemID.genericPassword(service: "shown", account: "ada")
        let hidden = ItemID.genericPassword(service: "hidden", account: "ada")
        try vault.set(Data("1".utf8), for: shown, options: ItemOptions(custom: ["team": "blue"]))
        try vault.set(Data("2".utf8), for: hidden, options: ItemOptions(custom: ["team": "blue"]))
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "blue"]).map(\.attributes.id), [hidden, shown])

        let raw = try RawVaultFile(folder.file("test.vault"))
        let hiddenRow = try vault.rowKey(for: hidden)
        let shownRow = try vault.rowKey(for: shown)
        try raw.execute("DELETE FROM attribute_index WHERE row_key = x'\(hex(hiddenRow))'")
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "blue"]).map(\.attributes.id), [shown])
        XCTAssertEqual(try vault.items(matching: ItemQuery(custom: ["team": "blue"])).map(\.id), [shown])
        XCTAssertNotNil(try vault.item(for: hidden))

        // Every token of "team=red" (which no item has) forged onto the shown item: still nothing.
        let keys = try vault.withUnlockedKeys { _, keys throws(CofferError) in keys }
        let forged = AttributeIndex.token(name: "team", value: "red", keys)
        try raw.execute("INSERT INTO attribute_index VALUES (x'\(hex(forged))', x'\(hex(shownRow))')")
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "red"]), [])
        XCTAssertEqual(try vault.verify().problems, [.attributeIndex(missingRows: 3, staleRows: 1)])

        // A rewrite with the same attributes leaves the rows as they are (missing ones too:
        // docs/vault-format.md, 5.4); one that changes an attribute writes all the item's rows.
        try vault.set(Data("3".utf8), for: hidden, options: ItemOptions(custom: ["team": "blue"]))
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "blue"]).map(\.attributes.id), [shown])
        try vault.set(Data("4".utf8), for: hidden, options: ItemOptions(custom: ["team": "green"]))
        XCTAssertEqual(try vault.storedItems(withAttributes: ["team": "green"]).map(\.attributes.id), [hidden])
        XCTAssertEqual(try vault.verify().problems, [.attributeIndex(missingRows: 0, staleRows: 1)])
    }

    /// A search by an attribute that every item has (libsecret's `xdg:schema`) together with a
    /// rare one finds the rare item among many, and the index holds one row per attribute.
    func testSearchWithACommonAttribute() throws {
        let vault = try folder.makeVault()
        let common = ["xdg:schema": "org.freedesktop.Secret.Generic"]
        try vault.set((0..<300).map { index in
            (id: ItemID.genericPassword(service: "s\(index)", account: "u"), secret: Data("\(index)".utf8), options: ItemOptions(custom: common))
        })
        let found = try vault.storedItems(withAttributes: common.merging(["service": "s123"]) { a, _ in a })
        XCTAssertEqual(found.map(\.attributes.id.service), ["s123"])
        XCTAssertEqual(try vault.storedItems(withAttributes: common).count, 300)
        XCTAssertEqual(try indexRows(folder.file("test.vault")), 900)
    }

    /// Setting an item replaces its rows, removing it removes them, an expired item's rows go
    /// when it is purged, and a rotation rebuilds every row under the new key: the vault
    /// verifies clean after each, and searches follow.
    func testIndexFollowsWrites() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        let id = ItemID.genericPassword(service: "s", account: "a")
        try vault.set(Data("1".utf8), for: id, options: ItemOptions(custom: ["color": "red"]))
        try vault.set(Data("2".utf8), for: id, options: ItemOptions(custom: ["color": "green"]))
        XCTAssertEqual(try vault.storedItems(withAttributes: ["color": "red"]), [])
        XCTAssertEqual(try vault.storedItems(withAttributes: ["color": "green"]).map(\.attributes.id), [id])
        XCTAssertTrue(try vault.verify().isClean)

        try vault.set(Data("3".utf8), for: .genericPassword(service: "brief", account: "a"),
                      options: ItemOptions(custom: ["color": "green"], expiresAt: clock.now.addingTimeInterval(10)))
        clock.advance(by: 20)
        XCTAssertEqual(try vault.storedItems(withAttributes: ["color": "green"]).map(\.attributes.id), [id])
        XCTAssertEqual(try indexRows(folder.file("test.vault")), 3, "the expired item's rows went with it")

        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)])
        XCTAssertEqual(try vault.storedItems(withAttributes: ["color": "green", "username": "a"]).map(\.attributes.id), [id])
        XCTAssertTrue(try vault.verify().isClean)

        try vault.remove(id)
        XCTAssertEqual(try indexRows(folder.file("test.vault")), 0)
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// A rewrite finds the item by what it has now and by nothing it had before, whether it
    /// changes only the secret and the label (its index rows stay as they are) or an internet
    /// or custom attribute (the rows that changed are replaced); it keeps the owner and the
    /// creation date either way.
    func testARewriteKeepsTheIndexTrue() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        let id = ItemID.internetPassword(server: "https://git.example.com", account: "ada")
        func found(_ attributes: [String: String]) throws -> [ItemID] { try vault.storedItems(withAttributes: attributes).map(\.attributes.id) }
        try vault.set(Data("1".utf8), for: id, options: ItemOptions(custom: ["team": "core"], internet: InternetAttributes(port: 443)))
        let created = try XCTUnwrap(vault.item(for: id)).attributes.created
        let owner = try vault.itemWithAccess(for: id)?.access.owner
        XCTAssertNotNil(owner)
        let rows = try XCTUnwrap(indexRows(folder.file("test.vault")))
        clock.advance(by: 5)

        try vault.set(Data("2".utf8), for: id, options: ItemOptions(label: "renamed", custom: ["team": "core"], internet: InternetAttributes(port: 443)))
        XCTAssertEqual(try found(["team": "core", "port": "443"]), [id])
        XCTAssertEqual(try indexRows(folder.file("test.vault")), rows)

        try vault.set(Data("3".utf8), for: id, options: ItemOptions(custom: ["team": "web"], internet: InternetAttributes(port: 8443)))
        XCTAssertEqual(try found(["team": "core"]), [])
        XCTAssertEqual(try found(["port": "443"]), [])
        XCTAssertEqual(try found(["team": "web", "port": "8443", "user": "ada"]), [id])
        XCTAssertEqual(try indexRows(folder.file("test.vault")), rows)

        try vault.set(Data("4".utf8), for: id, options: ItemOptions(internet: InternetAttributes(port: 8443)))
        XCTAssertEqual(try found(["team": "web"]), [])
        XCTAssertEqual(try indexRows(folder.file("test.vault")), rows - 1)

        let item = try XCTUnwrap(vault.item(for: id))
        XCTAssertEqual(item.secret, Data("4".utf8))
        XCTAssertEqual(item.attributes.created, created)
        XCTAssertEqual(try vault.itemWithAccess(for: id)?.access.owner, owner)
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// Moving an item to new names keeps its creation date and its secret, leaves no row at the
    /// old row key, and the index finds it by its new attributes only.
    func testMoveKeepsCreation() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        let old = ItemID.newAttributeItem()
        let oldRow = try vault.store(Data("s".utf8), for: old, options: ItemOptions(custom: ["k": "v"]))
        clock.advance(by: 60)
        let new = ItemID.genericPassword(service: "svc", account: "ada")
        let newRow = try vault.move(from: oldRow, to: new, secret: Data("s".utf8), options: ItemOptions(custom: ["k": "w"]))
        XCTAssertNil(try vault.storedItem(atRowKey: oldRow))
        let moved = try XCTUnwrap(try vault.storedItem(atRowKey: newRow))
        XCTAssertEqual(moved.attributes.created.addingTimeInterval(60), moved.attributes.modified)
        XCTAssertEqual(try vault.storedItems(withAttributes: ["k": "v"]), [])
        XCTAssertEqual(try vault.storedItems(withAttributes: ["k": "w", "service": "svc"]).map(\.rowKey), [newRow])
        XCTAssertThrows(.itemNotFound, try vault.move(from: oldRow, to: new, secret: Data(), options: ItemOptions()))
    }

    /// Reading a version 1 vault changes nothing in the file (reads, searches, listings, locked
    /// or not); the first write of an item migrates it to version 3 in one transaction, with
    /// every item indexed, unowned and still readable, and the policy open.
    func testVersion1MigratesOnFirstWrite() throws {
        let copy = try VaultFixtureTests.copyFixture(into: folder)
        let vault = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        let before = try Data(contentsOf: copy.vault)
        XCTAssertEqual(try vault.items(matching: ItemQuery(custom: ["env": "prod"])).map(\.id.service), ["com.example.mail"])
        XCTAssertEqual(try vault.storedItems(withAttributes: ["env": "prod"]).count, 1)
        XCTAssertNotNil(try vault.item(for: .genericPassword(service: "com.example.mail", account: "alice@example.com")))
        XCTAssertEqual(try userVersion(copy.vault), 1)
        XCTAssertEqual(try Data(contentsOf: copy.vault), before)

        try vault.set(Data("n".utf8), for: .genericPassword(service: "new", account: "one"), options: ItemOptions(custom: ["env": "prod"]))
        XCTAssertEqual(try userVersion(copy.vault), 3)
        XCTAssertEqual(try vault.storedItems(withAttributes: ["env": "prod"]).map(\.attributes.id.service), ["com.example.mail", "new"])
        XCTAssertTrue(try vault.verify().isClean)
        // Reopened, it is a version 3 vault with its tables checked as such.
        let reopened = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        XCTAssertEqual(try reopened.items(matching: .all).count, 7)
        XCTAssertEqual(try reopened.accessPolicy(), .open)
        XCTAssertEqual(try reopened.storedItems(matching: .all).filter { $0.access == .unowned }.count, 6)
        for item in try reopened.items(matching: .all) { XCTAssertNotNil(try reopened.secret(for: item.id), "\(item.id)") }
    }

    /// A process that opened the vault as version 1 before another migrated it writes the index
    /// too: each write reads the version inside its transaction.
    func testWriterThatOpenedVersion1KeepsTheIndex() throws {
        let copy = try VaultFixtureTests.copyFixture(into: folder)
        let early = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        let migrating = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        try migrating.set(Data("m".utf8), for: .genericPassword(service: "m", account: "a"))
        try early.set(Data("e".utf8), for: .genericPassword(service: "e", account: "a"), options: ItemOptions(custom: ["by": "early"]))
        XCTAssertEqual(try migrating.storedItems(withAttributes: ["by": "early"]).map(\.attributes.id.service), ["e"])
        XCTAssertTrue(try migrating.verify().isClean)
    }

    /// Attribute items and content types round-trip through the vault and through a v2 record.
    func testAttributeItemsAndContentTypes() throws {
        let vault = try folder.makeVault()
        let id = ItemID.newAttributeItem()
        XCTAssertEqual(id.service.count, 32)
        XCTAssertEqual(id.account, "")
        try vault.set(Data([0, 1]), for: id, options: ItemOptions(label: "L", custom: ["a": "b"], contentType: "application/octet-stream"))
        let item = try XCTUnwrap(try vault.item(for: id))
        XCTAssertEqual(item.attributes.contentType, "application/octet-stream")
        XCTAssertEqual(item.attributes.indexedAttributes, ["a": "b"])
        XCTAssertEqual(try vault.items(matching: ItemQuery(itemClass: .attributeItem)).map(\.id), [id])

        var bytes = ItemRecord.encode(
            ItemAttributes(id: .attributeItem(identifier: "x"), created: Date(), modified: Date()), secret: Data())
        XCTAssertNoThrow(try ItemRecord.decode(bytes))
        bytes = ItemRecord.encode(ItemAttributes(id: ItemID(itemClass: .attributeItem, service: "x", account: "a"), created: Date(), modified: Date()), secret: Data())
        XCTAssertThrows(.integrityFailure, try ItemRecord.decode(bytes))
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
