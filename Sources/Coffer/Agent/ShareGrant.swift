import FoundationEssentials

/// What a share (`coffer agent share`) lets the clients of its socket reach in one vault: one
/// item, the items of one service, or the items one program owns, read-only unless
/// ``readWrite``; or no item at all but the access tokens of one login the agent brokers
/// (docs/agent.md, "Sharing").
package struct ShareGrant: Sendable, Hashable {
    /// Which items the share covers.
    package enum Scope: Sendable, Hashable {
        /// The items of `itemClass` for `service`; only `account`'s when it is given (one item).
        case service(itemClass: ItemClass, service: String, account: String?)
        /// The items `program` owns (``Program/matches(_:)``).
        case program(Program)
        /// No item: the access tokens of the login `profile` the agent brokers, minted by the
        /// agent; its refresh token stays there. Never read-write.
        case profile(String)
    }

    package let scope: Scope
    /// Whether the clients may also write and delete the covered items.
    package let readWrite: Bool

    package init(scope: Scope, readWrite: Bool) {
        self.scope = scope
        self.readWrite = readWrite
    }

    /// The one item the share names, for the audit log: a service and an account, or the
    /// settings item of the profile whose tokens it shares (not an item it serves).
    package var item: ItemID? {
        switch scope {
        case .service(let itemClass, let service, let account?): ItemID(itemClass: itemClass, service: service, account: account)
        case .profile(let profile): BrokeredSessions.settingsID(profile: profile)
        case .service, .program: nil
        }
    }

    /// The profile whose tokens the share mints, when it shares one.
    package var profile: String? {
        guard case .profile(let profile) = scope else { return nil }
        return profile
    }

    /// Whether the item `id`, owned by `owner`, is one the share covers.
    package func covers(_ id: ItemID, owner: Program?) -> Bool {
        switch scope {
        case .service(let itemClass, let service, let account):
            return id.itemClass == itemClass && id.service == service && (account.map { $0 == id.account } ?? true)
        case .program(let program):
            return owner.map(program.matches) ?? false
        case .profile:
            return false
        }
    }

    /// `query` limited to the covered items, where the scope is a query's terms; `nil` when the
    /// two select nothing in common, as for a profile's share, which covers no item. A program's
    /// items are filtered after the query (``covers(_:owner:)``).
    package func narrowed(_ query: ItemQuery) -> ItemQuery? {
        if case .profile = scope { return nil }
        guard case .service(let itemClass, let service, let account) = scope else { return query }
        var narrowed = query
        for (wanted, granted) in [(query.service, service), (query.account, account)] {
            if let wanted, let granted, wanted != granted { return nil }
        }
        if let wanted = query.itemClass, wanted != itemClass { return nil }
        narrowed.itemClass = itemClass
        narrowed.service = service
        if let account { narrowed.account = account }
        return narrowed
    }

    /// The longest a share may last: a day.
    package static let maxLifetime: UInt32 = 86_400
    /// How long a share lasts when `--for` is not given: an hour.
    package static let defaultLifetime: UInt32 = 3_600
}
