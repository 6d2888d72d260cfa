import CofferAgentWire
import FoundationEssentials

/// One `items` reply's worth of a listing (docs/agent.md, section 4): the items after a cursor,
/// in store order, as many as one frame holds, and the cursor to ask from next when some are
/// left. A listing of any size thus reaches its client whole, page by page, with no frame over
/// ``AgentMessage/maxBodyBytes``. An item that stays in the vault while the pages are asked
/// for is listed once; one added or removed meanwhile may or may not be.
package enum ItemPage {
    /// The page of `items` (a listing in store order) after `after` (from the start when `nil`),
    /// as an `items` reply whose body stays within `limit` bytes. It holds at least one item
    /// when any is left, so each page moves the listing on.
    package static func reply(_ items: [ItemAttributes], after: ItemID?, limit: Int = AgentMessage.maxBodyBytes) -> AgentReply {
        reply(following(after, in: items), limit: limit)
    }

    /// The items of `items` (a listing in store order) after `after`; all of them when it is `nil`.
    package static func following(_ after: ItemID?, in items: [ItemAttributes]) -> ArraySlice<ItemAttributes> {
        after.map { after in items.drop { !ItemID.storeOrder(after, $0.id) } } ?? items[...]
    }

    /// The first page of `left` (a listing in store order, taken only as far as the page goes).
    package static func reply(_ left: some Sequence<ItemAttributes>, limit: Int = AgentMessage.maxBodyBytes) -> AgentReply {
        // The body: its version and kind, then a field (tag, u32be length, value) per record,
        // and room for the `next` field after the last.
        var size = 2
        var page: [ItemAttributes] = []
        for item in left {
            let grown = size + field(ItemRecord.encode(item, secret: Data()).count)
            guard page.isEmpty || grown + field(AgentRequest.encode(item.id).count) <= limit else {
                return .items(page, next: page.last?.id)
            }
            size = grown
            page.append(item)
        }
        return .items(page)
    }

    /// The whole listing from the pages `ask` answers, asked from the start, each after the
    /// last's `next`, until one has none. Throws ``CofferError/storageUnavailable(reason:)``
    /// when a page's cursor does not move forward, which no agent does.
    package static func all(_ ask: (ItemID?) throws(CofferError) -> AgentReply) throws(CofferError) -> [ItemAttributes] {
        var listed: [ItemAttributes] = []
        var after: ItemID?
        repeat {
            guard case .items(let page, let next) = try ask(after) else {
                throw .storageUnavailable(reason: "the agent answered another request")
            }
            if let next, let after, !ItemID.storeOrder(after, next) {
                throw .storageUnavailable(reason: "the agent's listing did not move forward")
            }
            listed += page
            after = next
        } while after != nil
        return listed
    }

    /// The item a request's `after` or a reply's `next` names (an `id` field's bytes).
    static func cursor(_ bytes: [UInt8]) throws(AgentProtocolError) -> ItemID {
        guard let id = AgentRequest.decodeID(bytes) else { throw AgentProtocolError("a malformed item to list after") }
        return id
    }

    private static func field(_ valueBytes: Int) -> Int { 5 + valueBytes }
}
