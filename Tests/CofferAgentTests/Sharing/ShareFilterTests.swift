@testable import Coffer
@testable import CofferAgent
import CofferTestSupport
import Foundation
import XCTest

/// A share's filter on a real vault the agent's handler holds: what the grant covers is served
/// from the shared vault whatever vault the request names and whatever the policy says;
/// everything else is answered as a missing item, or refused, and logged (docs/agent.md,
/// section 10).
final class ShareFilterTests: XCTestCase {
    let folder = TemporaryFolder()
    private let app = try! Program(executablePath: Array("/usr/bin/app".utf8))
    private let other = try! Program(executablePath: Array("/usr/bin/other".utf8))
    private let mine = ItemID.genericPassword(service: "app.example", account: "ada")
    private let theirs = ItemID.genericPassword(service: "other.example", account: "bob")

    /// A strict vault held by a handler: `mine` owned by /usr/bin/app, `theirs` by /usr/bin/other.
    private func held() throws -> (AgentRequestHandler, String, Vault) {
        let url = folder.file("shared.vault")
        let vault = try Vault.create(at: url, with: .key(SecureBytes.random(count: 32)))
        try vault.setAccessPolicy(.strict)
        try vault.set(Data("mine".utf8), for: mine, owner: app)
        try vault.set(Data("theirs".utf8), for: theirs, owner: other)
        let handler = AgentRequestHandler(vaults: HeldVaults(idleTimeout: 600))
        handler.vaults.hold(vault, at: url.path, for: 600)
        return (handler, url.path, vault)
    }

    /// A program's share: its items are read (an unidentified caller, a strict vault, another
    /// vault's path), the others are missing, listings show only its items, no write, no bulk
    /// removal, status shows nothing, and each decision is in the log with the front door `share`.
    func testAProgramsShareServesOnlyItsItems() throws {
        let (handler, path, vault) = try held()
        let filter = ShareFilter(vault: path, grant: ShareGrant(scope: .program(app), readWrite: false))
        func reply(_ request: AgentRequest) -> AgentReply { filter.reply(to: request, from: nil, handler: handler) }

        guard case .secret(let secret?) = reply(.secret(vault: "/nowhere/else.vault", id: mine)) else { return XCTFail("not read") }
        XCTAssertEqual(secret, Data("mine".utf8))
        guard case .secret(nil) = reply(.secret(vault: path, id: theirs)) else { return XCTFail("another program's item was found") }
        guard case .item(nil) = reply(.item(vault: path, id: theirs)) else { return XCTFail("another program's item was found") }
        guard case .items(let listed) = reply(.items(vault: path, query: ItemQuery())) else { return XCTFail("no listing") }
        XCTAssertEqual(listed.map(\.id), [mine])
        guard case .failure(.accessDenied) = reply(.set(vault: path, id: mine, secret: Data("x".utf8), options: ItemOptions())) else {
            return XCTFail("a read-only share wrote")
        }
        guard case .failure(.accessDenied) = reply(.removeAll(vault: path, query: ItemQuery())) else { return XCTFail("a bulk removal") }
        guard case .count(0) = reply(.remove(vault: path, id: theirs)) else { return XCTFail("a removal outside the grant") }
        guard case .agent(0, [], [], nil) = reply(.status) else { return XCTFail("status shows the agent") }
        guard case .failure(.accessDenied) = reply(.lock(vault: nil)) else { return XCTFail("a lock through a share") }
        XCTAssertNotNil(handler.vaults.use(path), "still held")
        XCTAssertEqual(try vault.secret(for: mine), Data("mine".utf8))
        XCTAssertEqual(try vault.secret(for: theirs), Data("theirs".utf8))

        let log = try vault.auditLog().filter { $0.frontDoor == .share }
        XCTAssertTrue(log.contains { $0.action == .read && $0.item == mine && $0.decision == .shared })
        XCTAssertTrue(log.contains { $0.action == .read && $0.item == theirs && $0.decision == .outsideGrant })
        XCTAssertTrue(log.contains { $0.action == .write && $0.item == mine && $0.decision == .outsideGrant })
    }

    /// A service's share narrows every query to its service (and account), and a query for
    /// another service selects nothing.
    func testAServicesGrantNarrowsQueries() {
        let grant = ShareGrant(scope: .service(itemClass: .internetPassword, service: "https://git.example", account: "ada"), readWrite: false)
        XCTAssertEqual(
            grant.narrowed(ItemQuery(custom: ["git.host": "git.example"])),
            ItemQuery(itemClass: .internetPassword, service: "https://git.example", account: "ada", custom: ["git.host": "git.example"]))
        XCTAssertNil(grant.narrowed(ItemQuery(service: "https://other.example")))
        XCTAssertNil(grant.narrowed(ItemQuery(account: "bob")))
        XCTAssertNil(grant.narrowed(ItemQuery(itemClass: .genericPassword)))
        XCTAssertTrue(grant.covers(.internetPassword(server: "https://git.example", account: "ada"), owner: nil))
        XCTAssertFalse(grant.covers(.internetPassword(server: "https://git.example", account: "bob"), owner: nil))
        XCTAssertFalse(grant.covers(.genericPassword(service: "https://git.example", account: "ada"), owner: nil))
    }
}
