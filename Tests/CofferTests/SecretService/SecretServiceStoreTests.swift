import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// The Secret Service store against gnome-keyring, and its interop with `secret-tool`.
final class SecretServiceStoreTests: XCTestCase {
    private var store: SecretServiceStore!
    private let service = "com.example.coffer-tests.store"

    override func setUpWithError() throws {
        try SecretServiceTestEnvironment.requireAvailable()
        store = SecretServiceStore()
        try store.removeAll(matching: ItemQuery(service: service))
    }

    override func tearDownWithError() throws {
        try store?.removeAll(matching: ItemQuery(service: service))
    }

    /// An item Coffer stores is the one `secret-tool lookup service S username U` prints, with the conventional attributes.
    func testSecretToolReadsWhatCofferStores() throws {
        try store.set(Data("hunter2 ✓".utf8), for: .genericPassword(service: service, account: "alice"))
        let lookup = try SecretServiceTestEnvironment.secretTool(["lookup", "service", service, "username", "alice"])
        XCTAssertEqual(lookup.status, 0, lookup.stderrText)
        XCTAssertEqual(lookup.stdoutText, "hunter2 ✓")

        // secret-tool matches any subset of an item's attributes, so each lookup proves one attribute.
        let conventional = ["application": "coffer", "xdg:schema": "org.freedesktop.Secret.Generic"]
        for (name, value) in conventional {
            let found = try SecretServiceTestEnvironment.secretTool(["lookup", "service", service, "username", "alice", name, value])
            XCTAssertEqual(found.stdoutText, "hunter2 ✓", "the item has \(name)=\(value)")
        }
        let search = try SecretServiceTestEnvironment.secretTool(["search", "service", service, "username", "alice"])
        XCTAssertTrue(search.stdoutText.contains("label = Password for 'alice' on '\(service)'"), search.stdoutText)
    }

    /// An item `secret-tool store` wrote reads back through Coffer, label and extra attributes included.
    func testCofferReadsWhatSecretToolStores() throws {
        let stored = try SecretServiceTestEnvironment.secretTool(
            ["store", "--label=Bob's token", "service", service, "username", "bob", "tier", "gold"], stdin: Data("t0k3n".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)

        let item = try XCTUnwrap(store.item(for: .genericPassword(service: service, account: "bob")))
        XCTAssertEqual(item.secret, Data("t0k3n".utf8))
        XCTAssertEqual(item.attributes.label, "Bob's token")
        XCTAssertEqual(item.attributes.custom, ["tier": "gold"])
        XCTAssertEqual(try store.items(matching: ItemQuery(service: service)).map(\.id.account), ["bob"])
    }
}

extension SecretServiceStoreTests {
    /// An internet password is stored under libsecret's network-password attributes, which secret-tool can look up.
    func testInternetPasswordsUseTheNetworkPasswordAttributes() throws {
        let id = ItemID.internetPassword(server: service, account: "carol")
        let internet = InternetAttributes(protocol: "https", port: 8443, path: "/api", authenticationType: "httpBasic")
        try store.set(Data("web-secret".utf8), for: id, options: ItemOptions(internet: internet))

        let lookup = try SecretServiceTestEnvironment.secretTool([
            "lookup", "xdg:schema", "org.gnome.keyring.NetworkPassword", "server", service, "user", "carol",
            "protocol", "https", "port", "8443", "object", "/api", "authtype", "httpBasic",
        ])
        XCTAssertEqual(lookup.stdoutText, "web-secret", lookup.stderrText)
        XCTAssertNil(try store.item(for: .genericPassword(service: service, account: "carol")), "it is not a generic password")
    }

    /// Comment, expiry and custom attributes are plain attributes that other tools can search by.
    func testMetadataIsStoredAsAttributes() throws {
        let expiresAt = Date(timeIntervalSince1970: 4_102_444_800.123)
        try store.set(Data("meta".utf8), for: .genericPassword(service: service, account: "dan"),
                      options: ItemOptions(comment: "a note", custom: ["tier": "gold"], expiresAt: expiresAt))
        let lookup = try SecretServiceTestEnvironment.secretTool([
            "lookup", "service", service, "username", "dan", "coffer:comment", "a note",
            "coffer:expires-at", "4102444800123", "tier", "gold",
        ])
        XCTAssertEqual(lookup.stdoutText, "meta", lookup.stderrText)
    }

    /// An item without a label of its own gets a readable default label, which reads back as no label.
    func testDefaultLabelReadsBackAsNil() throws {
        try store.set(Data("x".utf8), for: .genericPassword(service: service, account: "erin"))
        XCTAssertNil(try store.item(for: .genericPassword(service: service, account: "erin"))?.attributes.label)
    }

    /// Custom attributes that would clash with the convention's names, and NUL characters, are refused with a typed error.
    func testReservedNamesAndNulCharactersAreRefused() throws {
        for name in ["service", "username", "application", "xdg:schema", "server", "coffer:comment", "coffer:x"] {
            XCTAssertThrowsError(try store.set(Data("x".utf8), for: .genericPassword(service: service, account: "f"),
                                               options: ItemOptions(custom: [name: "v"])), name) { error in
                guard case .invalidArgument = error as? CofferError else { return XCTFail("\(name): \(error)") }
            }
        }
        XCTAssertThrowsError(try store.set(Data("x".utf8), for: .genericPassword(service: service, account: "nul\u{0}"))) { error in
            guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try store.items(matching: ItemQuery(service: service)), [])
    }

    /// When other tools left several items with one service and account, reads take the newest and a set leaves exactly one.
    func testDuplicatesFromOtherToolsCollapseOnSet() throws {
        for (label, secret) in [("older", "one"), ("newer", "two")] {
            let stored = try SecretServiceTestEnvironment.secretTool(
                ["store", "--label=\(label)", "service", service, "username", "gina", "origin", label], stdin: Data(secret.utf8))
            XCTAssertEqual(stored.status, 0, stored.stderrText)
            Thread.sleep(forTimeInterval: 1.05)  // the daemon's times are whole seconds
        }
        let id = ItemID.genericPassword(service: service, account: "gina")
        XCTAssertEqual(try store.secret(for: id), Data("two".utf8), "the newest wins")
        XCTAssertEqual(try store.items(matching: ItemQuery(service: service)).count, 1, "listed once")

        try store.set(Data("three".utf8), for: id)
        let all = try SecretServiceTestEnvironment.secretTool(["search", "--all", "service", service, "username", "gina"])
        XCTAssertEqual(all.stdoutText.components(separatedBy: "secret = ").count - 1, 1, all.stdoutText)
        XCTAssertEqual(try store.secret(for: id), Data("three".utf8))
    }

    /// Items in another collection (here the session collection) are not the default collection's: not read, listed or removed.
    func testOnlyTheDefaultCollectionIsUsed() throws {
        let stored = try SecretServiceTestEnvironment.secretTool(
            ["store", "--label=elsewhere", "--collection=session", "service", service, "username", "hana"], stdin: Data("other".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        defer { _ = try? SecretServiceTestEnvironment.secretTool(["clear", "service", service, "username", "hana"]) }
        let id = ItemID.genericPassword(service: service, account: "hana")
        XCTAssertNil(try store.item(for: id))
        XCTAssertEqual(try store.items(matching: ItemQuery(service: service)), [])
        XCTAssertFalse(try store.remove(id))

        try store.set(Data("mine".utf8), for: id)
        XCTAssertEqual(try store.secret(for: id), Data("mine".utf8))
        let all = try SecretServiceTestEnvironment.secretTool(["search", "--all", "service", service, "username", "hana"])
        XCTAssertTrue(all.stdoutText.contains("secret = other"), "the other collection's item is untouched: \(all.stdoutText)")
    }

    /// With gnome-keyring running and unlocked, the status is available.
    func testStatusIsAvailable() throws {
        XCTAssertEqual(try SecretService.status(), .available)
    }
}
