import CofferAgentWire
import Foundation
import XCTest
@testable import Coffer

/// A listing cut into `items` replies (docs/agent.md, section 4): every page fits its frame, the
/// pages together are the listing once and in order, and a client gives up on a cursor that does
/// not move forward.
final class ItemPageTests: XCTestCase {
    /// `count` items in store order, each with a label of `labelBytes` bytes.
    private func listing(_ count: Int, labelBytes: Int) -> [ItemAttributes] {
        (0..<count).map { index in
            var options = ItemOptions()
            options.label = String(repeating: "l", count: labelBytes)
            let id = ItemID.genericPassword(service: "svc", account: String(format: "user%04d", index))
            return ItemAttributes(id: id, options: options, created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0))
        }
    }

    /// Pages asked for one after another, the way ``ItemPage/all(_:)`` asks, with `limit`.
    private func pages(of items: [ItemAttributes], limit: Int) throws -> [AgentReply] {
        var pages: [AgentReply] = []
        _ = try ItemPage.all { after throws(CofferError) in
            let page = ItemPage.reply(items, after: after, limit: limit)
            pages.append(page)
            return page
        }
        return pages
    }

    func testPagesFitTheirFrameAndTogetherAreTheListingInOrder() throws {
        let items = listing(50, labelBytes: 300)
        let limit = 4_000
        let pages = try pages(of: items, limit: limit)
        XCTAssertGreaterThan(pages.count, 4, "the listing is cut")
        var listed: [ItemAttributes] = []
        for page in pages {
            let body = page.message.frame.count - 4
            XCTAssertLessThanOrEqual(body, limit)
            // What the client reads back is what was sent.
            let decoded = try AgentReply(XCTUnwrap(AgentMessage(body: Array(page.message.frame.dropFirst(4)))), to: .items(vault: "/v", query: ItemQuery()))
            guard case .items(let got, let next) = decoded, case .items(let sent, let sentNext) = page else { return XCTFail("not items") }
            XCTAssertEqual(got.map(\.id), sent.map(\.id))
            XCTAssertEqual(next, sentNext)
            listed += got
        }
        XCTAssertEqual(listed.map(\.id), items.map(\.id))
        guard case .items(_, nil) = pages.last else { return XCTFail("the last page names a next item") }
    }

    func testAListingThatFitsIsOneReplyWithNoCursor() throws {
        let items = listing(3, labelBytes: 10)
        guard case .items(let page, nil) = ItemPage.reply(items, after: nil) else { return XCTFail("cut") }
        XCTAssertEqual(page.map(\.id), items.map(\.id))
    }

    func testAPageStartsAfterItsCursorEvenWhenTheCursorsItemIsGone() {
        let items = listing(10, labelBytes: 10)
        guard case .items(let page, nil) = ItemPage.reply(items, after: items[3].id) else { return XCTFail("cut") }
        XCTAssertEqual(page.map(\.id), Array(items[4...]).map(\.id))
        let withoutCursor = items.filter { $0.id != items[3].id }
        guard case .items(let same, nil) = ItemPage.reply(withoutCursor, after: items[3].id) else { return XCTFail("cut") }
        XCTAssertEqual(same.map(\.id), Array(items[4...]).map(\.id))
        guard case .items([], nil) = ItemPage.reply(items, after: items[9].id) else { return XCTFail("items after the last") }
    }

    /// An item larger than the limit still goes, alone on its page, so that the listing moves on.
    func testAnItemLargerThanThePageGoesAloneOnItsPage() throws {
        let items = listing(3, labelBytes: 2_000)
        let pages = try pages(of: items, limit: 1_000)
        XCTAssertEqual(pages.count, 3)
        for (page, item) in zip(pages, items) {
            guard case .items(let one, _) = page else { return XCTFail("not items") }
            XCTAssertEqual(one.map(\.id), [item.id])
        }
    }

    /// A reply whose cursor does not move forward (a broken agent) ends the listing with a
    /// typed error instead of asking forever.
    func testACursorThatDoesNotMoveForwardIsAnError() {
        let items = listing(3, labelBytes: 10)
        XCTAssertThrowsError(try ItemPage.all { _ throws(CofferError) in .items([items[1]], next: items[1].id) }) { error in
            guard case .storageUnavailable = error as? CofferError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ItemPage.all { _ throws(CofferError) in .count(1) }) { error in
            guard case .storageUnavailable = error as? CofferError else { return XCTFail("\(error)") }
        }
    }

    /// The cursors go over the wire and back as the item they name.
    func testTheCursorRoundTripsInTheRequestAndTheReply() throws {
        let id = ItemID.internetPassword(server: "host.example", account: "ada")
        let request = AgentRequest.items(vault: "/v", query: ItemQuery(service: "mail"), after: id)
        guard case .items("/v", _, let after) = try AgentRequest(request.message) else { return XCTFail("not items") }
        XCTAssertEqual(after, id)
        XCTAssertEqual(request.message.fields.last, AgentMessage.Field(0x15, AgentItemName.encode(itemClass: 2, service: "host.example", account: "ada")))
        let malformed = AgentMessage(kind: AgentRequestKind.items.rawValue, fields: [
            .init(AgentRequestTag.vault.rawValue, Array("/v".utf8)), .init(AgentRequestTag.after.rawValue, [9, 0]),
        ])
        XCTAssertThrowsError(try AgentRequest(malformed))
    }
}
