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
    /// vault's path), the others are missing, listings show only its items (the thin `coffer
    /// list`'s text request is refused: it asks item by item then), no write, no bulk
    /// removal, status shows nothing, and each decision is in the log with the front door `share`.
    func testAProgramsShareServesOnlyItsItems() throws {
        let (handler, path, vault) = try held()
        let filter = ShareFilter(vault: path, grant: ShareGrant(scope: .program(app), readWrite: false))
        func reply(_ request: AgentRequest) -> AgentReply { filter.reply(to: request, from: nil, handler: handler) }

        guard case .secret(let secret?) = reply(.secret(vault: "/nowhere/else.vault", id: mine)) else { return XCTFail("not read") }
        XCTAssertEqual(secret, Data("mine".utf8))
        guard case .secret(nil) = reply(.secret(vault: path, id: theirs)) else { return XCTFail("another program's item was found") }
        guard case .item(nil) = reply(.item(vault: path, id: theirs)) else { return XCTFail("another program's item was found") }
        guard case .items(let listed, nil) = reply(.items(vault: path, query: ItemQuery())) else { return XCTFail("no listing") }
        XCTAssertEqual(listed.map(\.id), [mine])
        // The thin coffer's listing text would show every item: a share refuses it, and coffer
        // asks with the items request above instead.
        guard case .failure(.invalidArgument) = reply(.listing(vault: path, query: ItemQuery())) else { return XCTFail("a listing through a share") }
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

    /// A profile's share lets through only the token requests of its profile, rewritten for the
    /// shared vault; everything else is refused and logged (front door `share`, `outside-grant`):
    /// another profile's tokens, keeping or ending a login (a sandbox neither replaces nor ends
    /// the person's login), reads of every item, the login's own `coffer.openid` items among them
    /// (answered as missing), listings (empty), writes and removals. The items stay as they were.
    func testAProfilesShareForwardsOnlyItsProfilesTokenRequests() throws {
        let (handler, path, vault) = try held()
        let settings = BrokeredSessions.settingsID(profile: "work")
        let session = ItemID.genericPassword(service: BrokeredSessions.service, account: "work app https://id.example")
        try vault.set(Data(#"{"provider":{}}"#.utf8), for: settings, owner: app)
        try vault.set(Data(#"{"refreshToken":"rt"}"#.utf8), for: session, owner: app)
        let filter = ShareFilter(vault: path, grant: ShareGrant(scope: .profile("work"), readWrite: false))
        func admitted(_ request: AgentRequest) -> ShareFilter.Admission { filter.admit(request, by: app, vaults: handler.vaults, gate: handler.shareGate) }
        func reply(_ request: AgentRequest) -> AgentReply { filter.reply(to: request, from: nil, handler: handler) }

        for refused: String? in [nil, "old-token"] {
            guard case .forward(.token(path, "work", refused)) = admitted(.token(vault: "/nowhere/else.vault", profile: "work", refused: refused)) else {
                return XCTFail("the profile's token request is not forwarded on the shared vault")
            }
        }
        for request: AgentRequest in [
            .token(vault: path, profile: "home", refused: nil), .keepLogin(vault: path, profile: "work", login: SecureBytes(copying: Array("{}".utf8))),
            .endLogin(vault: path, profile: "work"), .set(vault: path, id: settings, secret: Data("x".utf8), options: ItemOptions()),
            .set(vault: path, id: mine, secret: Data("x".utf8), options: ItemOptions()), .removeAll(vault: path, query: ItemQuery()),
            .lock(vault: nil), .stop,
        ] {
            guard case .failure(.accessDenied) = reply(request) else { return XCTFail("\(request) through a profile's share") }
        }
        for id in [settings, session, mine] {
            guard case .item(nil) = reply(.item(vault: path, id: id)), case .secret(nil) = reply(.secret(vault: path, id: id)) else {
                return XCTFail("\(id) was found through a profile's share")
            }
            guard case .count(0) = reply(.remove(vault: path, id: id)) else { return XCTFail("\(id) removed through a profile's share") }
        }
        guard case .items([], nil) = reply(.items(vault: path, query: ItemQuery())) else { return XCTFail("a profile's share lists items") }
        guard case .items([], nil) = reply(.items(vault: path, query: ItemQuery(service: BrokeredSessions.service))) else { return XCTFail("listed") }
        guard case .agent(0, [], [], nil) = reply(.status) else { return XCTFail("status shows the agent") }
        XCTAssertEqual(try vault.secret(for: session), Data(#"{"refreshToken":"rt"}"#.utf8))
        XCTAssertEqual(try vault.secret(for: settings), Data(#"{"provider":{}}"#.utf8))
        XCTAssertEqual(try vault.secret(for: mine), Data("mine".utf8))

        let log = try vault.auditLog().filter { $0.frontDoor == .share && $0.decision == .outsideGrant }
        XCTAssertTrue(log.contains { $0.action == .token && $0.item == BrokeredSessions.settingsID(profile: "home") }, "another profile's token")
        XCTAssertTrue(log.contains { $0.action == .write && $0.item == settings }, "a login kept")
        XCTAssertTrue(log.contains { $0.action == .delete && $0.item == settings }, "a login ended")
        XCTAssertTrue(log.contains { $0.action == .read && $0.item == session }, "the session read")
    }

    /// A share of items (a service's, a program's) mints no token, of any profile, and keeps and
    /// ends no login; each refusal is logged.
    func testSharesOfItemsRefuseTokenRequests() throws {
        let (handler, path, vault) = try held()
        for scope: ShareGrant.Scope in [.service(itemClass: .genericPassword, service: BrokeredSessions.service, account: nil), .program(app)] {
            let filter = ShareFilter(vault: path, grant: ShareGrant(scope: scope, readWrite: true))
            for request: AgentRequest in [
                .token(vault: path, profile: "work", refused: nil), .keepLogin(vault: path, profile: "work", login: SecureBytes(copying: Array("{}".utf8))),
                .endLogin(vault: path, profile: "work"),
            ] {
                guard case .answer(.failure(.accessDenied)) = filter.admit(request, by: app, vaults: handler.vaults, gate: handler.shareGate) else {
                    return XCTFail("\(request) through a share of \(scope)")
                }
            }
        }
        let refusals = try vault.auditLog().filter { $0.frontDoor == .share && $0.decision == .outsideGrant && $0.item == BrokeredSessions.settingsID(profile: "work") }
        XCTAssertEqual(refusals.count, 6, "each refusal is logged")
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

    /// A program's share of a listing larger than one reply: the pages together are the
    /// program's items, once and in order, and no page's cursor names another program's item
    /// (the cursor goes to the sandbox, so it is taken after the grant's filter).
    func testAProgramsShareOfALargeListingPagesOnlyItsItems() throws {
        let url = folder.file("large.vault")
        let vault = try Vault.create(at: url, with: .key(SecureBytes.random(count: 32)))
        try vault.setAccessPolicy(.strict)
        var options = ItemOptions()
        options.custom = Dictionary(uniqueKeysWithValues: (0..<64).map { ("a\($0)", String(repeating: "v", count: 4_000)) })
        var covered: [ItemID] = []
        for index in 0..<40 {
            let id = ItemID.genericPassword(service: "svc", account: String(format: "user%02d", index))
            try vault.set(Data("s".utf8), for: id, options: options, owner: index.isMultiple(of: 2) ? app : other)
            if index.isMultiple(of: 2) { covered.append(id) }
        }
        let handler = AgentRequestHandler(vaults: HeldVaults(idleTimeout: 600))
        handler.vaults.hold(vault, at: url.path, for: 600)
        let filter = ShareFilter(vault: url.path, grant: ShareGrant(scope: .program(app), readWrite: false))
        var cursors: [ItemID] = []
        let listed = try ItemPage.all { after throws(CofferError) in
            let reply = filter.reply(to: .items(vault: url.path, query: ItemQuery(), after: after), from: nil, handler: handler)
            if case .items(_, let next?) = reply { cursors.append(next) }
            return reply
        }
        XCTAssertEqual(listed.map(\.id), covered)
        XCTAssertFalse(cursors.isEmpty, "the listing fit one reply")
        for cursor in cursors { XCTAssertTrue(covered.contains(cursor), "a cursor names \(cursor), outside the grant") }
    }
}
