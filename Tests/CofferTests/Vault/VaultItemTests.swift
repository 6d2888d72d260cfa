import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultItemTests: XCTestCase {
    let folder = TemporaryFolder()
    let account = ItemID.genericPassword(service: "com.example.app", account: "john")

    /// Text secrets round-trip exactly, including emoji, right-to-left text and combining marks.
    func testUnicodeSecretsRoundTrip() throws {
        let vault = try folder.makeVault()
        for (index, text) in ["s3cret", "pässwörd ✓ 🔑", "كلمة السر", "e\u{301}\u{302}", String(repeating: "語", count: 5000)].enumerated() {
            let id = ItemID.genericPassword(service: "unicode", account: "a\(index)")
            try vault.set(Data(text.utf8), for: id)
            XCTAssertEqual(try vault.secret(for: id), Data(text.utf8))
        }
    }

    /// Binary secrets (every byte value, NULs included) round-trip exactly.
    /// An expiry that does not fit the format's milliseconds is refused by `set` itself, and
    /// nothing is stored (before, the conversion trapped).
    func testAFarExpiryIsAnInvalidArgumentAndStoresNothing() throws {
        let vault = try folder.makeVault()
        let id = ItemID.genericPassword(service: "s", account: "a")
        for seconds in [1e16, -1e16, Double(Int64.max)] {
            XCTAssertThrows(.invalidArgument(reason: "the expiry date is out of range"),
                            try vault.set(Data("v".utf8), for: id, options: ItemOptions(expiresAt: Date(timeIntervalSince1970: seconds))))
        }
        XCTAssertNil(try vault.secret(for: id))
    }

    func testBinarySecretsRoundTrip() throws {
        let vault = try folder.makeVault()
        let binary = Data((0...255).map(UInt8.init) + [0, 0, 0xFF, 0])
        try vault.set(binary, for: account)
        XCTAssertEqual(try vault.secret(for: account), binary)
        XCTAssertEqual(try vault.item(for: account)?.secret, binary)
    }

    /// The empty secret and a secret of exactly the maximum size are stored; one byte more is refused
    /// with secretTooLarge and leaves the previous value in place.
    func testEmptyAndMaximumSizes() throws {
        let vault = try folder.makeVault()
        try vault.set(Data(), for: account)
        XCTAssertEqual(try vault.secret(for: account), Data())

        let maximum = Data((0..<Limits.maxSecretBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try vault.set(maximum, for: account)
        XCTAssertEqual(try vault.secret(for: account), maximum)

        XCTAssertThrows(
            .secretTooLarge(size: Limits.maxSecretBytes + 1, limit: Limits.maxSecretBytes),
            try vault.set(Data(count: Limits.maxSecretBytes + 1), for: self.account))
        XCTAssertEqual(try vault.secret(for: account), maximum)
    }

    /// Label, comment, custom attributes, expiry and internet attributes round-trip.
    func testAttributesRoundTrip() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        let server = ItemID.internetPassword(server: "api.example.com", account: "svc")
        let options = ItemOptions(
            label: "Example API", comment: "used by the sync job", custom: ["env": "prod", "team": "☕"],
            expiresAt: clock.now.addingTimeInterval(3600),
            internet: InternetAttributes(protocol: "https", port: 8443, path: "/v1", authenticationType: "oauth2"))
        try vault.set(Data("token".utf8), for: server, options: options)

        let attributes = try XCTUnwrap(try vault.item(for: server)?.attributes)
        XCTAssertEqual(attributes.id, server)
        XCTAssertEqual(attributes.options, options)
        XCTAssertEqual(attributes.created, clock.now)
        XCTAssertEqual(attributes.modified, clock.now)
    }

    /// Setting an existing item replaces secret and metadata, keeps `created` and moves `modified`.
    func testReplaceKeepsCreated() throws {
        let clock = TestClock.wholeSecond()
        let vault = try folder.makeVault(configuration: .test(clock: clock))
        try vault.set(Data("one".utf8), for: account, options: ItemOptions(label: "first"))
        let created = clock.now
        clock.advance(by: 90)
        try vault.set(Data("two".utf8), for: account, options: ItemOptions(comment: "second"))

        let item = try XCTUnwrap(try vault.item(for: account))
        XCTAssertEqual(item.secret, Data("two".utf8))
        XCTAssertNil(item.attributes.label)
        XCTAssertEqual(item.attributes.comment, "second")
        XCTAssertEqual(item.attributes.created, created)
        XCTAssertEqual(item.attributes.modified, clock.now)
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().count, 1)
    }

    /// A missing item reads as nil, and removing it reports false; removing an existing one reports true.
    func testAbsentItems() throws {
        let vault = try folder.makeVault()
        XCTAssertNil(try vault.secret(for: account))
        XCTAssertNil(try vault.item(for: account))
        XCTAssertFalse(try vault.remove(account))
        try vault.set(Data("x".utf8), for: account)
        XCTAssertTrue(try vault.remove(account))
        XCTAssertNil(try vault.secret(for: account))
    }

    /// A generic and an internet password with the same names are different items.
    func testClassesAreSeparate() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("generic".utf8), for: .genericPassword(service: "example.com", account: "a"))
        try vault.set(Data("internet".utf8), for: .internetPassword(server: "example.com", account: "a"))
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "example.com", account: "a")), Data("generic".utf8))
        XCTAssertEqual(try vault.secret(for: .internetPassword(server: "example.com", account: "a")), Data("internet".utf8))
    }

    /// Names that Swift considers equal (precomposed "é" and "e" + combining accent) find the same item.
    func testCanonicallyEquivalentNamesMatch() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("x".utf8), for: .genericPassword(service: "caf\u{E9}", account: "Jos\u{E9}"))
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "cafe\u{301}", account: "Jose\u{301}")), Data("x".utf8))
    }

    /// Out-of-range names and attributes fail with invalidArgument and store nothing.
    func testLimitsAreEnforced() throws {
        let vault = try folder.makeVault()
        let long = String(repeating: "x", count: Limits.maxNameBytes + 1)
        XCTAssertThrows(.invalidArgument(reason: "service is longer than 1024 bytes"),
                        try vault.set(Data(), for: .genericPassword(service: long, account: "a")))
        XCTAssertThrows(.invalidArgument(reason: "account is longer than 1024 bytes"),
                        try vault.set(Data(), for: .genericPassword(service: "s", account: long)))
        XCTAssertThrows(.invalidArgument(reason: "port must be 0-65535"),
                        try vault.set(Data(), for: .internetPassword(server: "s", account: "a"),
                                      options: ItemOptions(internet: InternetAttributes(port: 70000))))
        XCTAssertThrows(.invalidArgument(reason: "internet attributes are only for internet passwords"),
                        try vault.set(Data(), for: self.account, options: ItemOptions(internet: InternetAttributes(path: "/"))))
        let many = Dictionary(uniqueKeysWithValues: (0...Limits.maxCustomAttributes).map { ("k\($0)", "v") })
        XCTAssertThrows(.invalidArgument(reason: "more than 64 custom attributes"),
                        try vault.set(Data(), for: self.account, options: ItemOptions(custom: many)))
        XCTAssertEqual(try RawVaultFile(folder.file("test.vault")).items().count, 0)
    }

    /// Queries select by class, service, account and custom attributes; removeAll removes just those.
    func testQueries() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("1".utf8), for: .genericPassword(service: "mail", account: "ann"), options: ItemOptions(custom: ["tier": "gold"]))
        try vault.set(Data("2".utf8), for: .genericPassword(service: "mail", account: "bob"))
        try vault.set(Data("3".utf8), for: .genericPassword(service: "chat", account: "ann"), options: ItemOptions(custom: ["tier": "gold"]))
        try vault.set(Data("4".utf8), for: .internetPassword(server: "mail", account: "ann"))

        func accounts(_ query: ItemQuery) throws -> [String] {
            try vault.items(matching: query).map { "\($0.id.service)/\($0.id.account)" }
        }
        XCTAssertEqual(try accounts(.all), ["chat/ann", "mail/ann", "mail/bob", "mail/ann"])
        XCTAssertEqual(try accounts(ItemQuery(itemClass: .genericPassword, service: "mail")), ["mail/ann", "mail/bob"])
        XCTAssertEqual(try accounts(ItemQuery(account: "ann")), ["chat/ann", "mail/ann", "mail/ann"])
        XCTAssertEqual(try accounts(ItemQuery(custom: ["tier": "gold"])), ["chat/ann", "mail/ann"])
        XCTAssertEqual(try accounts(ItemQuery(itemClass: .genericPassword, service: "mail", account: "bob")), ["mail/bob"])

        XCTAssertEqual(try vault.removeAll(matching: ItemQuery(itemClass: .genericPassword, service: "mail")), 2)
        XCTAssertEqual(try accounts(.all), ["chat/ann", "mail/ann"])
    }

    /// Items written before closing are there after reopening the file with the passphrase.
    func testPersistsAcrossReopen() throws {
        do {
            let vault = try folder.makeVault()
            try vault.set(Data("persisted".utf8), for: account, options: ItemOptions(label: "kept"))
        }
        let reopened = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try reopened.secret(for: account), Data("persisted".utf8))
        XCTAssertEqual(try reopened.item(for: account)?.attributes.label, "kept")
    }

    /// `Item.description` names the item but never shows the secret.
    func testItemDescriptionHidesSecret() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("hunter2".utf8), for: account)
        let item = try XCTUnwrap(try vault.item(for: account))
        var dumped = ""
        dump(item, to: &dumped)
        for text in ["\(item)", String(reflecting: item), dumped] {
            XCTAssertFalse(text.contains("hunter2"), text)
        }
    }
}
