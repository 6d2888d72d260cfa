import Coffer
import Foundation
import XCTest

/// One XCTest suite of the behaviours every Coffer `CredentialStore` shares: Coffer runs it
/// over the vault, the Secret Service and the in-memory store, and you can run it over your own.
///
/// Subclass it, return a store from ``makeStore()``, and declare the test that runs the suite.
/// XCTest on Linux runs only test methods declared in the test target itself, so the subclass
/// declares the entry point:
///
/// ```swift
/// import CofferConformance
///
/// final class MyStoreConformanceTests: CredentialStoreConformanceTests {
///     override func makeStore() throws -> any CredentialStore { MyStore() }
///     func testConformance() throws { try checkConformance() }
/// }
/// ```
///
/// Each behaviour gets a store of its own from ``makeStore()``. The suite works only with items
/// whose service starts with ``servicePrefix``, and removes them before and after each behaviour,
/// so a store that already holds other items (a real keyring) is fine. Failures name the
/// behaviour that failed. To run one behaviour alone, call ``check(_:)``.
open class CredentialStoreConformanceTests: XCTestCase {
    /// Every service the suite writes to starts with this.
    public static let servicePrefix = "coffer.conformance."

    /// A store for one behaviour. Override it; the default skips, so the base class runs nothing.
    open func makeStore() throws -> any CredentialStore {
        throw XCTSkip("CredentialStoreConformanceTests: override makeStore() in a subclass")
    }

    /// The smallest step the store's `created` and `modified` times take. The suite waits this
    /// long before replacing an item. Default: 1 s, which any store meets (the Secret Service
    /// keeps whole seconds).
    open var timestampResolution: Duration { .seconds(1) }

    /// Checks every behaviour, each on a fresh store, and goes on after a failure.
    public func checkConformance() throws {
        for behaviour in CredentialStoreBehaviour.allCases {
            try check(behaviour)
        }
    }

    /// Checks one behaviour on a fresh store. An error thrown by the store fails the check.
    public func check(_ behaviour: CredentialStoreBehaviour) throws {
        let store = try makeStore()
        currentBehaviour = behaviour
        defer { currentBehaviour = nil }
        do {
            try clean(store)
            try run(behaviour, on: store)
            try clean(store)
        } catch {
            XCTFail("unexpected error: \(error)")
            try? clean(store)
        }
    }

    private var currentBehaviour: CredentialStoreBehaviour?

    /// Prefixes every failure with the behaviour being checked.
    override open func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let prefix = currentBehaviour.map { "[\($0.rawValue)] " } ?? ""
        super.recordFailure(withDescription: prefix + description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    private func run(_ behaviour: CredentialStoreBehaviour, on store: any CredentialStore) throws {
        switch behaviour {
        case .textRoundTrip: try checkTextRoundTrip(store)
        case .binaryRoundTrip: try checkBinaryRoundTrip(store)
        case .unicodeRoundTrip: try checkUnicodeRoundTrip(store)
        case .emptySecret: try checkEmptySecret(store)
        case .maximumSizeSecret: try checkMaximumSizeSecret(store)
        case .replaceKeepsCreated: try checkReplaceKeepsCreated(store)
        case .absentItems: try checkAbsentItems(store)
        case .expiry: try checkExpiry(store)
        case .queries: try checkQueries(store)
        case .removeAll: try checkRemoveAll(store)
        case .limits: try checkLimits(store)
        case .internetPasswords: try checkInternetPasswords(store)
        case .concurrency: try checkConcurrency(store)
        case .redaction: try checkRedaction(store)
        }
    }

    // MARK: Names

    private let mainService = servicePrefix + "main"
    private let otherService = servicePrefix + "other"
    private let unicodeService = servicePrefix + "服务-ü-🔑"
    private let server = servicePrefix + "example.com"

    private func clean(_ store: any CredentialStore) throws {
        for service in [mainService, otherService, unicodeService, server] {
            try store.removeAll(matching: ItemQuery(service: service))
        }
    }

    private func generic(_ account: String, service: String? = nil) -> ItemID {
        .genericPassword(service: service ?? mainService, account: account)
    }

    // MARK: Behaviours

    private func checkTextRoundTrip(_ store: any CredentialStore) throws {
        let options = ItemOptions(label: "Alice at work", comment: "rotated monthly", custom: ["env": "prod", "team": "ops"])
        try store.set(Data("s3cret".utf8), for: generic("alice"), options: options)

        let item = try XCTUnwrap(store.item(for: generic("alice")), "a stored item reads back")
        XCTAssertEqual(item.secret, Data("s3cret".utf8))
        XCTAssertEqual(item.attributes.id, generic("alice"))
        XCTAssertEqual(item.attributes.label, "Alice at work")
        XCTAssertEqual(item.attributes.comment, "rotated monthly")
        XCTAssertEqual(item.attributes.custom, ["env": "prod", "team": "ops"])
        XCTAssertNil(item.attributes.expiresAt)
        XCTAssertLessThanOrEqual(item.attributes.created, item.attributes.modified)
        XCTAssertEqual(try store.secret(for: generic("alice")), Data("s3cret".utf8))

        let keychain = Keychain(service: mainService, store: store)
        XCTAssertEqual(try keychain.string(for: "alice"), "s3cret")
        XCTAssertEqual(try keychain.allKeys(), ["alice"])
    }

    private func checkBinaryRoundTrip(_ store: any CredentialStore) throws {
        let bytes = Data((0...255).map(UInt8.init) + [0, 0, 0xFF, 0xFE])
        try store.set(bytes, for: generic("binary"), options: ItemOptions())
        XCTAssertEqual(try store.secret(for: generic("binary")), bytes, "every byte value round-trips")
        XCTAssertThrowsError(try Keychain(service: mainService, store: store).string(for: "binary")) {
            XCTAssertEqual($0 as? CofferError, .notUTF8)
        }
    }

    private func checkUnicodeRoundTrip(_ store: any CredentialStore) throws {
        let precomposed = "Zo\u{EB}", decomposed = "Zoe\u{308}"
        let id = generic(precomposed, service: unicodeService)
        let secret = Data("пароль 🔐 ✓".utf8)
        try store.set(secret, for: id, options: ItemOptions(label: "ラベル", custom: ["città": "Zürich"]))

        let item = try XCTUnwrap(store.item(for: id))
        XCTAssertEqual(item.secret, secret)
        XCTAssertEqual(item.attributes.id.service, unicodeService)
        XCTAssertEqual(item.attributes.label, "ラベル")
        XCTAssertEqual(item.attributes.custom, ["città": "Zürich"])

        let equivalent = generic(decomposed, service: unicodeService)
        XCTAssertEqual(try store.secret(for: equivalent), secret, "a canonically equivalent name reads the same item")
        try store.set(Data("second".utf8), for: equivalent, options: ItemOptions())
        XCTAssertEqual(try store.items(matching: ItemQuery(service: unicodeService)).count, 1, "and replaces it")
        XCTAssertEqual(try store.secret(for: id), Data("second".utf8))
    }

    private func checkEmptySecret(_ store: any CredentialStore) throws {
        try store.set(Data(), for: generic("empty"), options: ItemOptions())
        XCTAssertEqual(try store.secret(for: generic("empty")), Data(), "an empty secret is not an absent one")
        XCTAssertEqual(try store.item(for: generic("empty"))?.secret, Data())
    }

    private func checkMaximumSizeSecret(_ store: any CredentialStore) throws {
        var generator = SystemRandomNumberGenerator()
        let largest = Data((0..<Limits.maxSecretBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try store.set(largest, for: generic("large"), options: ItemOptions())
        XCTAssertEqual(try store.secret(for: generic("large")), largest)

        XCTAssertThrowsError(try store.set(largest + Data([0]), for: generic("large"), options: ItemOptions())) {
            XCTAssertEqual($0 as? CofferError, .secretTooLarge(size: Limits.maxSecretBytes + 1, limit: Limits.maxSecretBytes))
        }
        XCTAssertEqual(try store.secret(for: generic("large")), largest, "a refused write leaves the item as it was")
    }

    private func checkReplaceKeepsCreated(_ store: any CredentialStore) throws {
        try store.set(Data("first".utf8), for: generic("carol"), options: ItemOptions(label: "one", comment: "c", custom: ["a": "1"]))
        let created = try XCTUnwrap(store.item(for: generic("carol"))).attributes.created
        Thread.sleep(forTimeInterval: Double(timestampResolution.components.seconds)
            + Double(timestampResolution.components.attoseconds) / 1e18 + 0.05)

        try store.set(Data("second".utf8), for: generic("carol"), options: ItemOptions(label: "two", custom: ["b": "2"]))
        let item = try XCTUnwrap(store.item(for: generic("carol")))
        XCTAssertEqual(item.secret, Data("second".utf8))
        XCTAssertEqual(item.attributes.label, "two")
        XCTAssertNil(item.attributes.comment, "metadata is replaced as a whole")
        XCTAssertEqual(item.attributes.custom, ["b": "2"], "metadata is replaced as a whole")
        XCTAssertEqual(item.attributes.created, created, "replacing keeps the creation time")
        XCTAssertGreaterThan(item.attributes.modified, created, "replacing advances the modification time")
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)).map(\.id), [generic("carol")])
    }

    private func checkAbsentItems(_ store: any CredentialStore) throws {
        XCTAssertNil(try store.item(for: generic("nobody")))
        XCTAssertNil(try store.secret(for: generic("nobody")))
        XCTAssertFalse(try store.remove(generic("nobody")))
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)), [])
        XCTAssertEqual(try store.removeAll(matching: ItemQuery(service: mainService)), 0)

        try store.set(Data("x".utf8), for: generic("dave"), options: ItemOptions())
        XCTAssertTrue(try store.remove(generic("dave")))
        XCTAssertNil(try store.secret(for: generic("dave")), "a removed item is absent")
        XCTAssertFalse(try store.remove(generic("dave")))
    }

    private func checkExpiry(_ store: any CredentialStore) throws {
        let past = Date().addingTimeInterval(-60), future = Date().addingTimeInterval(3600)
        try store.set(Data("old".utf8), for: generic("expired"), options: ItemOptions(expiresAt: past))
        try store.set(Data("new".utf8), for: generic("fresh"), options: ItemOptions(expiresAt: future))

        XCTAssertNil(try store.item(for: generic("expired")), "an expired item reads as absent")
        XCTAssertNil(try store.secret(for: generic("expired")))
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)).map(\.id), [generic("fresh")])
        XCTAssertEqual(try store.removeAll(matching: ItemQuery(account: "expired")), 0, "expired items are not counted")

        let fresh = try XCTUnwrap(store.item(for: generic("fresh")))
        XCTAssertEqual(fresh.secret, Data("new".utf8))
        let expiresAt = try XCTUnwrap(fresh.attributes.expiresAt)
        XCTAssertEqual(expiresAt.timeIntervalSince1970, future.timeIntervalSince1970, accuracy: 1)
    }

    private func checkQueries(_ store: any CredentialStore) throws {
        let prod = ItemOptions(custom: ["env": "prod"]), test = ItemOptions(custom: ["env": "test"])
        try store.set(Data("1".utf8), for: generic("zed"), options: prod)
        try store.set(Data("2".utf8), for: generic("amy"), options: test)
        try store.set(Data("3".utf8), for: generic("amy", service: otherService), options: prod)
        try store.set(Data("4".utf8), for: .internetPassword(server: server, account: "amy"), options: prod)

        func accounts(_ query: ItemQuery) throws -> [String] {
            try store.items(matching: query).filter { $0.id.service.hasPrefix(Self.servicePrefix) }
                .map { "\($0.id.service.dropFirst(Self.servicePrefix.count))/\($0.id.account)" }
        }
        XCTAssertEqual(try accounts(ItemQuery(service: mainService)), ["main/amy", "main/zed"], "sorted by account")
        XCTAssertEqual(try accounts(ItemQuery(account: "amy", custom: ["env": "prod"])), ["other/amy", "example.com/amy"],
                       "generic passwords before internet passwords")
        XCTAssertEqual(try accounts(ItemQuery(itemClass: .genericPassword, account: "amy")), ["main/amy", "other/amy"])
        XCTAssertEqual(try accounts(ItemQuery(itemClass: .internetPassword, service: server)), ["example.com/amy"])
        XCTAssertEqual(try accounts(ItemQuery(service: mainService, custom: ["env": "staging"])), [])
        XCTAssertEqual(try accounts(ItemQuery(service: mainService, account: "zed", custom: ["env": "prod"])), ["main/zed"])
        XCTAssertEqual(try accounts(ItemQuery(service: mainService, account: "zed", custom: ["env": "test"])), [])
    }

    private func checkRemoveAll(_ store: any CredentialStore) throws {
        for account in ["a", "b", "c"] {
            try store.set(Data(account.utf8), for: generic(account), options: ItemOptions(custom: ["keep": account == "c" ? "yes" : "no"]))
        }
        try store.set(Data("o".utf8), for: generic("a", service: otherService), options: ItemOptions(custom: ["keep": "no"]))

        XCTAssertEqual(try store.removeAll(matching: ItemQuery(service: mainService, custom: ["keep": "no"])), 2)
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)).map(\.id.account), ["c"])
        XCTAssertEqual(try store.secret(for: generic("a", service: otherService)), Data("o".utf8), "other services are untouched")
        XCTAssertEqual(try store.removeAll(matching: ItemQuery(service: mainService, account: "c")), 1)
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)), [])
    }

    private func checkLimits(_ store: any CredentialStore) throws {
        let long = String(repeating: "x", count: Limits.maxNameBytes + 1)
        let text = String(repeating: "t", count: Limits.maxTextBytes + 1)
        let tooMany = Dictionary(uniqueKeysWithValues: (0...Limits.maxCustomAttributes).map { ("k\($0)", "v") })
        let refused: [(String, ItemID, ItemOptions, Data)] = [
            ("service too long", generic("a", service: mainService + long), ItemOptions(), Data("x".utf8)),
            ("account too long", generic(long), ItemOptions(), Data("x".utf8)),
            ("label too long", generic("limits"), ItemOptions(label: text), Data("x".utf8)),
            ("comment too long", generic("limits"), ItemOptions(comment: text), Data("x".utf8)),
            ("too many custom attributes", generic("limits"), ItemOptions(custom: tooMany), Data("x".utf8)),
            ("custom name too long", generic("limits"),
             ItemOptions(custom: [String(repeating: "n", count: Limits.maxAttributeNameBytes + 1): "v"]), Data("x".utf8)),
            ("internet attributes on a generic password", generic("limits"),
             ItemOptions(internet: InternetAttributes(protocol: "https")), Data("x".utf8)),
            ("port out of range", .internetPassword(server: server, account: "limits"),
             ItemOptions(internet: InternetAttributes(port: 70000)), Data("x".utf8)),
        ]
        for (what, id, options, secret) in refused {
            XCTAssertThrowsError(try store.set(secret, for: id, options: options), what) { error in
                guard case .invalidArgument = error as? CofferError else {
                    return XCTFail("\(what): expected invalidArgument, got \(error)")
                }
            }
        }
        XCTAssertEqual(try store.items(matching: ItemQuery(service: mainService)), [], "refused writes store nothing")
        XCTAssertEqual(try store.items(matching: ItemQuery(service: server)), [])
    }

    private func checkInternetPasswords(_ store: any CredentialStore) throws {
        let internetID = ItemID.internetPassword(server: server, account: "erin")
        let internet = InternetAttributes(protocol: "https", port: 8443, path: "/api", authenticationType: "httpBasic")
        try store.set(Data("web".utf8), for: internetID, options: ItemOptions(label: "Erin's API login", internet: internet))
        try store.set(Data("generic".utf8), for: generic("erin", service: server), options: ItemOptions())

        let item = try XCTUnwrap(store.item(for: internetID))
        XCTAssertEqual(item.secret, Data("web".utf8))
        XCTAssertEqual(item.attributes.internet, internet)
        XCTAssertEqual(item.attributes.label, "Erin's API login")
        XCTAssertEqual(try store.secret(for: generic("erin", service: server)), Data("generic".utf8),
                       "a generic password with the same names is another item")
        XCTAssertNil(try store.item(for: generic("erin", service: server))?.attributes.internet)

        XCTAssertTrue(try store.remove(internetID))
        XCTAssertNil(try store.item(for: internetID))
        XCTAssertEqual(try store.secret(for: generic("erin", service: server)), Data("generic".utf8), "removing one leaves the other")
    }

    private func checkConcurrency(_ store: any CredentialStore) throws {
        let threads = 4, rounds = 6
        let own = (0..<threads).map { generic("thread-\($0)") }, shared = generic("shared")
        let query = ItemQuery(service: mainService)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                do {
                    let value = Data("t\(thread)-r\(round)".utf8)
                    try store.set(value, for: own[thread], options: ItemOptions())
                    try store.set(value, for: shared, options: ItemOptions())
                    if try store.secret(for: own[thread]) != value { failures.add("thread \(thread) lost its own write") }
                    if try store.secret(for: shared) == nil { failures.add("the shared item read as absent") }
                    _ = try store.items(matching: query)
                } catch {
                    failures.add("thread \(thread): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
        let accounts = try store.items(matching: ItemQuery(service: mainService)).map(\.id.account)
        XCTAssertEqual(accounts, ["shared"] + (0..<threads).map { "thread-\($0)" })
        let last = try XCTUnwrap(store.secret(for: shared))
        XCTAssertTrue((0..<threads).contains { Data("t\($0)-r\(rounds - 1)".utf8) == last }, "the shared item holds a last write")
    }

    private func checkRedaction(_ store: any CredentialStore) throws {
        let secret = "never-print-me-7f3a"
        try store.set(Data(secret.utf8), for: generic("frank"), options: ItemOptions())
        let item = try XCTUnwrap(store.item(for: generic("frank")))
        var dumped = ""
        dump(item, to: &dumped)
        for text in [item.description, String(reflecting: item), "\(item)", dumped, "\(item.attributes)"] {
            XCTAssertFalse(text.contains(secret), "a secret showed up in: \(text)")
        }
    }
}

/// Failures collected from many threads.
private final class Failures: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}
