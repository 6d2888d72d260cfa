import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class KeychainTests: XCTestCase {
    let folder = TemporaryFolder()

    /// The README's one-liner works: a keychain for a service on a vault created on first use,
    /// and the value is there for a second keychain on the same vault.
    func testCommonCase() throws {
        let url = folder.file("app.vault")
        let keychain = try Keychain(service: "com.example.app", vault: url, unlock: .passphrase("p"), configuration: .test())
        try keychain.set("s3cret", for: "john")
        XCTAssertEqual(try keychain.string(for: "john"), "s3cret")
        XCTAssertEqual(try keychain["john"], "s3cret")

        let again = try Keychain(service: "com.example.app", vault: url, unlock: .passphrase("p"), configuration: .test())
        XCTAssertEqual(try again.string(for: "john"), "s3cret")
    }

    /// Every convenience agrees with the store: data, contains, attributes, allKeys, items,
    /// remove and removeAll, scoped to the keychain's service.
    func testConveniences() throws {
        let store = InMemoryStore()
        let keychain = Keychain(service: "svc", store: store)
        let other = Keychain(service: "other", store: store)
        try keychain.set(Data([0xFF, 0xFE]), for: "bin", options: ItemOptions(label: "Binary", custom: ["kind": "raw"]))
        try keychain.set("text", for: "txt")
        try other.set("x", for: "bin")

        XCTAssertEqual(try keychain.data(for: "bin"), Data([0xFF, 0xFE]))
        XCTAssertTrue(try keychain.contains("txt"))
        XCTAssertFalse(try keychain.contains("none"))
        XCTAssertNil(try keychain.string(for: "none"))
        XCTAssertNil(try keychain["none"])
        XCTAssertEqual(try keychain.attributes(for: "bin")?.label, "Binary")
        XCTAssertNil(try keychain.attributes(for: "none"))
        XCTAssertEqual(try keychain.allKeys(), ["bin", "txt"])
        XCTAssertEqual(try keychain.items(matching: ["kind": "raw"]).map(\.id.account), ["bin"])
        XCTAssertThrows(.notUTF8, try keychain.string(for: "bin"))

        XCTAssertTrue(try keychain.remove("txt"))
        XCTAssertFalse(try keychain.remove("txt"))
        XCTAssertEqual(try keychain.removeAll(), 1)
        XCTAssertEqual(try keychain.allKeys(), [])
        XCTAssertEqual(try other.string(for: "bin"), "x")
    }

    /// A keychain of internet passwords stores internet-password items for its server.
    func testInternetKeychain() throws {
        let store = InMemoryStore()
        let keychain = Keychain(server: "api.example.com", store: store)
        try keychain.set("tok", for: "svc", options: ItemOptions(internet: InternetAttributes(protocol: "https")))
        XCTAssertEqual(try store.item(for: .internetPassword(server: "api.example.com", account: "svc"))?.attributes.internet?.protocol, "https")
        XCTAssertNil(try store.item(for: .genericPassword(service: "api.example.com", account: "svc")))
    }

    /// A locked vault behind a keychain throws `locked`; it never reads as "not found".
    func testLockedIsNotAbsent() throws {
        let vault = try folder.makeVault()
        let keychain = Keychain(service: "svc", store: vault)
        try keychain.set("v", for: "a")
        vault.lock()
        XCTAssertThrows(.locked, try keychain.string(for: "a"))
        XCTAssertThrows(.locked, try keychain.contains("a"))
        XCTAssertThrows(.locked, try keychain.allKeys())
    }
}
