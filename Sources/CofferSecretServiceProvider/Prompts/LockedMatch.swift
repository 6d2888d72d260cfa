/// What a search of the service lists for a locked collection when a prompter could unlock it
/// (docs/secret-service.md, "Searching a locked collection").
///
/// A locked vault's items are encrypted, labels and attributes included, so the provider cannot
/// tell which of them match. Instead of the items, `SearchItems` lists one object that stands for
/// whatever in the collection may match, whatever the search asks. libsecret's lookups unlock
/// what a search lists as locked, then read the first object the unlock reports: so `Unlock` on
/// a locked match unlocks its collection (through the prompter) and reports the items that do
/// match, searched once the collection is open. As an item, it shows nothing: no attributes, no
/// label, no times; only whether its collection is locked.
struct LockedMatch: Equatable {
    let path: String
    /// The connection whose search listed it.
    let owner: String
    let collection: ServedCollection
    /// The search, as the client asked it.
    let attributes: [String: String]
}

/// The locked matches listed and not yet forgotten. A connection keeps at most
/// ``perConnection`` (a repeated search reuses its match; a new one past the limit replaces the
/// connection's oldest), all connections together at most ``total`` (the oldest go first); a
/// connection's go when it leaves the bus.
struct LockedMatchTable {
    static let perConnection = 16
    static let total = 1024

    /// Oldest first.
    private var matches: [LockedMatch] = []
    private var counter = 0

    /// The match for `owner`'s search of `collection`: the one listed before for the same
    /// search, or a new one.
    mutating func match(for owner: String, in collection: ServedCollection, attributes: [String: String]) -> LockedMatch {
        if let same = matches.first(where: { $0.owner == owner && $0.collection == collection && $0.attributes == attributes }) {
            return same
        }
        if let oldest = matches.firstIndex(where: { $0.owner == owner }), matches.count(where: { $0.owner == owner }) >= Self.perConnection {
            matches.remove(at: oldest)
        }
        if matches.count >= Self.total { matches.removeFirst() }
        counter += 1
        let match = LockedMatch(path: ObjectPaths.lockedMatch(counter, in: collection.name), owner: owner, collection: collection, attributes: attributes)
        matches.append(match)
        return match
    }

    /// The match at `path`, whoever listed it (it reveals nothing).
    func match(at path: String) -> LockedMatch? {
        matches.first { $0.path == path }
    }

    /// Forgets the matches of a connection that left the bus.
    mutating func removeAll(of owner: String) {
        matches.removeAll { $0.owner == owner }
    }
}
