import Coffer
import CofferAgentWire
@testable import CofferSecretServiceProvider
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// ``UpstreamItems`` on a real share of a real agent (the built `coffer agent start`): it lists
/// and reads the share's items under row keys made from their identities, finds nothing outside
/// the grant, reads as locked (never empty) once the share ends, and passes the share's refusal
/// of a write on without changing anything (docs/secret-service.md, "Inside a sandbox").
final class UpstreamItemsTests: XCTestCase {
    let folder = TemporaryFolder()
    var agentFolder: URL { folder.file("run") }
    var socket: String { agentFolder.appendingPathComponent("agent.sock").path }
    var shareSocket: String { agentFolder.appendingPathComponent("share.sock").path }
    var vaultURL: URL { folder.file("user.vault") }
    var keyFile: URL { folder.file("user.key") }
    private var agent: RunningAgent?
    private let alice = ItemID.genericPassword(service: "granted", account: "alice")
    private let bob = ItemID.genericPassword(service: "other", account: "bob")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: agentFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
        chmod(keyFile.path, 0o600)
        let vault = try Vault.create(at: vaultURL, with: .keyFile(keyFile))
        try vault.set(Data("shared secret".utf8), for: alice, options: ItemOptions(custom: ["xdg:schema": "org.example.Password"]))
        try vault.set(Data("unshared secret".utf8), for: bob)
        vault.lock()
        let started = try RunningAgent(socket: socket)
        agent = started
        try started.unlock(vaultURL, keyFile: keyFile)
    }

    override func tearDown() {
        agent?.stop()
        super.tearDown()
    }

    private func share(readWrite: Bool = false) throws {
        let grant = ShareGrant(scope: .service(itemClass: .genericPassword, service: "granted", account: nil), readWrite: readWrite)
        let reply = try AgentClient(path: socket).send(.share(
            vault: vaultURL.resolvingSymlinksInPath().path, socket: shareSocket, grant: grant, lifetime: 600,
            credential: .keyFile(keyFile.resolvingSymlinksInPath().path)))
        guard case .done = reply else { throw CofferError.storageUnavailable(reason: "the agent did not share: \(reply)") }
    }

    private func unshare() throws {
        guard case .done = try AgentClient(path: socket).send(.unshare(socket: shareSocket)) else { throw CofferError.storageUnavailable(reason: "no unshare") }
    }

    private func vaultSecret(_ id: ItemID) throws -> Data? {
        try Vault.open(at: vaultURL, unlock: .keyFile(keyFile)).secret(for: id)
    }

    /// The granted item is listed with its Secret Service attributes under the row key of its
    /// identity, and read there; a search by another service's attributes, or by an attribute it
    /// lacks, finds nothing; the other item's row key names nothing.
    func testTheSharesItemsAreListedAndReadByIdentity() throws {
        try share()
        let items = UpstreamItems(socket: shareSocket)
        XCTAssertTrue(items.isAvailable)
        let found = try items.storedItems(withAttributes: ["service": "granted", "username": "alice"])
        XCTAssertEqual(found.map(\.rowKey), [UpstreamItems.rowKey(of: alice)])
        XCTAssertEqual(found.first?.attributes.indexedAttributes, ["service": "granted", "username": "alice", "xdg:schema": "org.example.Password"])
        XCTAssertEqual(try items.storedItems(withAttributes: [:]).map(\.attributes.id), [alice], "every item: the share's alone")
        XCTAssertEqual(try items.storedItems(withAttributes: ["service": "other"]), [])
        XCTAssertEqual(try items.storedItems(withAttributes: ["service": "granted", "missing": "x"]), [])
        XCTAssertEqual(try items.storedItem(atRowKey: UpstreamItems.rowKey(of: alice))?.secret, Data("shared secret".utf8))
        XCTAssertNil(try items.storedItem(atRowKey: UpstreamItems.rowKey(of: bob)))
        XCTAssertNil(try items.accessPolicy(), "the share decided: no policy of the provider's")
        XCTAssertNil(items.gated, "no vault here to log in")
        XCTAssertNotEqual(UpstreamItems.rowKey(of: alice), UpstreamItems.rowKey(of: .genericPassword(service: "granted", account: "alicf")))
    }

    /// Once the share ends, every read throws `locked` (the collection cannot say what it holds),
    /// never an empty answer; a new share at the same socket serves again.
    func testAShareThatEndsReadsAsLocked() throws {
        try share()
        let items = UpstreamItems(socket: shareSocket)
        XCTAssertEqual(try items.storedItems(withAttributes: [:]).count, 1)
        try unshare()
        XCTAssertFalse(items.isAvailable)
        XCTAssertThrowsError(try items.storedItems(withAttributes: [:])) { XCTAssertEqual($0 as? CofferError, .locked) }
        XCTAssertThrowsError(try items.storedItem(atRowKey: UpstreamItems.rowKey(of: alice))) { XCTAssertEqual($0 as? CofferError, .locked) }
        try share()
        XCTAssertEqual(try items.storedItem(atRowKey: UpstreamItems.rowKey(of: alice))?.secret, Data("shared secret".utf8))
    }

    /// A read-only share refuses a store, a move and a removal (`accessDenied`) and the vault is
    /// unchanged; an item removed upstream is not found at its row key any more.
    func testAReadOnlyShareRefusesWritesAndChangesNothing() throws {
        try share()
        let items = UpstreamItems(socket: shareSocket)
        let rowKey = UpstreamItems.rowKey(of: alice)
        XCTAssertThrowsError(try items.store(Data("x".utf8), for: alice, options: ItemOptions(), owner: nil)) {
            guard case .accessDenied? = $0 as? CofferError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try items.move(from: rowKey, to: .genericPassword(service: "granted", account: "renamed"), secret: Data("x".utf8),
                                            options: ItemOptions())) {
            guard case .accessDenied? = $0 as? CofferError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try items.removeStoredItem(atRowKey: rowKey)) { guard case .accessDenied? = $0 as? CofferError else { return XCTFail("\($0)") } }
        XCTAssertEqual(try vaultSecret(alice), Data("shared secret".utf8))
        XCTAssertNil(try vaultSecret(.genericPassword(service: "granted", account: "renamed")))

        guard case .count(1) = try AgentClient(path: socket).send(.remove(vault: vaultURL.resolvingSymlinksInPath().path, id: alice)) else {
            return XCTFail("not removed")
        }
        XCTAssertNil(try items.storedItemWithAccess(atRowKey: rowKey), "removed upstream")
    }

    /// Through a read-write share a move writes the new item and removes the old one; a store
    /// outside the grant is still refused.
    func testAReadWriteShareMovesAnItem() throws {
        try share(readWrite: true)
        let items = UpstreamItems(socket: shareSocket)
        let renamed = ItemID.genericPassword(service: "granted", account: "renamed")
        let rowKey = try items.move(from: UpstreamItems.rowKey(of: alice), to: renamed, secret: Data("moved".utf8), options: ItemOptions())
        XCTAssertEqual(rowKey, UpstreamItems.rowKey(of: renamed))
        XCTAssertEqual(try vaultSecret(renamed), Data("moved".utf8))
        XCTAssertNil(try vaultSecret(alice))
        XCTAssertThrowsError(try items.store(Data("x".utf8), for: bob, options: ItemOptions(), owner: nil)) {
            guard case .accessDenied? = $0 as? CofferError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try vaultSecret(bob), Data("unshared secret".utf8))
    }

    /// A socket that takes connections and never answers (a stuck agent) reads as locked once
    /// the request's time limit (``UpstreamItems/timeout``) has passed: no read waits longer.
    func testAShareThatDoesNotAnswerReadsAsLockedInBoundedTime() throws {
        let listener = try AgentSocket.listen(path: shareSocket)
        defer { close(listener) }
        let items = UpstreamItems(socket: shareSocket)
        let started = ContinuousClock.now
        XCTAssertThrowsError(try items.storedItems(withAttributes: [:])) { XCTAssertEqual($0 as? CofferError, .locked) }
        XCTAssertFalse(items.isAvailable)
        XCTAssertLessThan(ContinuousClock.now - started, UpstreamItems.timeout * 2 + .seconds(5))
    }
}
