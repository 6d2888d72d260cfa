import CofferBase
import FoundationEssentials

/// A store that keeps items in memory only, with the same behaviour as the others.
/// Meant for apps' own tests.
public final class InMemoryStore: CredentialStore {
    private let items = Guarded<[ItemID: Item]>([:])
    private let now: @Sendable () -> Date

    /// An empty store whose expiry decisions use `now`.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Creates or replaces the item, keeping `created` from the item it replaces.
    public func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        try Limits.checkItem(secret, for: id, options: options)
        let now = now()
        items.withLock { items in
            let previous = items[id].flatMap { $0.attributes.isExpired(at: now) ? nil : $0 }
            let attributes = ItemAttributes(id: id, options: options, created: previous?.attributes.created ?? now, modified: now)
            items[id] = Item(attributes: attributes, secret: secret)
        }
    }

    /// The item, or `nil` when it is absent or expired.
    public func item(for id: ItemID) throws(CofferError) -> Item? {
        let now = now()
        return items.withLock { items in
            guard let item = items[id] else { return nil }
            guard !item.attributes.isExpired(at: now) else {
                items[id] = nil
                return nil
            }
            return item
        }
    }

    /// Removes the item. Returns whether there was one.
    @discardableResult
    public func remove(_ id: ItemID) throws(CofferError) -> Bool {
        items.withLock { $0.removeValue(forKey: id) != nil }
    }

    /// The attributes of the live items the query selects, in store order.
    public func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        let now = now()
        return items.withLock { items in
            items = items.filter { !$0.value.attributes.isExpired(at: now) }
            return items.values.map(\.attributes).filter(query.matches).sorted(by: ItemAttributes.storeOrder)
        }
    }

    /// Removes the live items the query selects, and every expired item.
    @discardableResult
    public func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        let now = now()
        return items.withLock { items in
            let doomed = items.filter { $0.value.attributes.isExpired(at: now) || query.matches($0.value.attributes) }
            let removed = doomed.filter { !$0.value.attributes.isExpired(at: now) }.count
            for id in doomed.keys { items[id] = nil }
            return removed
        }
    }
}
