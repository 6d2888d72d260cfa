import FoundationEssentials

/// A ``CredentialStore`` in the Secret Service's default collection, through libsecret.
///
/// Items interoperate both ways with `secret-tool` and the keyring libraries of Python, Rust
/// and Go: a generic password for service `S` and account `U` is the item that
/// `secret-tool lookup service S username U` reads. docs/secret-service.md lists every attribute.
///
/// ```swift
/// let keychain = Keychain(service: "com.example.app", store: SecretServiceStore())
/// try keychain.set("s3cret", for: "john")
/// ```
///
/// Every call checks the service first and fails fast with a typed error when there is no
/// session bus or no daemon (``CofferError/secretServiceUnavailable(reason:)``), when the
/// default collection is locked or missing (``CofferError/locked``), or when the daemon does
/// not answer within ``SecretService/Configuration/timeout`` (``CofferError/timeout``). It
/// never prompts, never starts a daemon, and never falls back to another store.
///
/// The Secret Service has no transactions. `set` rewrites an existing item in place (secret,
/// then attributes, then label) so that the item is never absent, and keeps the daemon's
/// creation time. Attributes and labels are not encrypted by every daemon; keep secrets in
/// the secret.
public final class SecretServiceStore: CredentialStore {
    /// How this store talks to the Secret Service.
    public let configuration: SecretService.Configuration
    private let now: @Sendable () -> Date

    /// A store in the default collection; expiry decisions use `now`.
    public init(configuration: SecretService.Configuration = SecretService.Configuration(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
    }

    public func set(_ secret: Data, for id: ItemID, options: ItemOptions = ItemOptions()) throws(CofferError) {
        try id.validate()
        try options.validate(for: id.itemClass)
        try Limits.checkSecret(size: secret.count)
        try SecretServiceItemFormat.validate(id, options)
        let attributes = SecretServiceItemFormat.attributes(for: id, options: options, application: configuration.application)
        let label = SecretServiceItemFormat.label(for: id, options: options)
        let now = now()
        try withCollection { session throws(CofferError) in
            let existing = try found(named: id, in: session, now: now)?.items ?? []
            try withBytes(secret) { bytes throws(CofferError) in
                try session.upsert(existing, attributes: attributes, label: label, secret: bytes)
            }
        }
    }

    public func item(for id: ItemID) throws(CofferError) -> Item? {
        let now = now()
        return try withCollection { session throws(CofferError) -> Item? in
            guard let current = try found(named: id, in: session, now: now), let newest = current.items.first else { return nil }
            try session.loadSecrets([newest])
            guard let secret = newest.secretData() else {
                throw .secretServiceUnavailable(reason: "the daemon returned no secret for an unlocked item")
            }
            return Item(attributes: current.attributes, secret: secret)
        }
    }

    @discardableResult
    public func remove(_ id: ItemID) throws(CofferError) -> Bool {
        guard let identity = SecretServiceItemFormat.identity(id) else { return false }
        return try withCollection { session throws(CofferError) -> Bool in
            try session.deleteAll(identity)
        }
    }

    public func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        let now = now()
        return try withCollection { session throws(CofferError) in
            try found(by: SecretServiceItemFormat.searches(for: query), where: query.matches, in: session, now: now)
                .map(\.attributes).sorted(by: ItemAttributes.storeOrder)
        }
    }

    /// Every item matching `query`, with its secret, expired ones included; deletes nothing.
    /// For copying items elsewhere (``ItemImport``), where the originals must stay as they are.
    public func itemsWithSecrets(matching query: ItemQuery) throws(CofferError) -> [Item] {
        let now = now()
        return try withCollection { session throws(CofferError) -> [Item] in
            let found = try found(by: SecretServiceItemFormat.searches(for: query), where: query.matches, in: session, now: now, purgingExpired: false)
            let newest = found.compactMap(\.items.first)
            try session.loadSecrets(newest)
            return try found.sorted { ItemAttributes.storeOrder($0.attributes, $1.attributes) }.map { entry throws(CofferError) -> Item in
                guard let secret = entry.items[0].secretData() else {
                    throw .secretServiceUnavailable(reason: "the daemon returned no secret for an unlocked item")
                }
                return Item(attributes: entry.attributes, secret: secret)
            }
        }
    }

    @discardableResult
    public func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        let now = now()
        return try withCollection { session throws(CofferError) -> Int in
            let doomed = try found(by: SecretServiceItemFormat.searches(for: query), where: query.matches, in: session, now: now)
            for item in doomed.flatMap(\.items) { try session.delete(item) }
            return doomed.count
        }
    }

    // MARK: Helpers

    /// The live Secret Service items of one Coffer item: usually one, newest first when other
    /// tools stored duplicates. `attributes` are the newest's.
    private struct Found {
        let items: [SecretServiceItem]
        let attributes: ItemAttributes
    }

    private func withCollection<R>(_ body: (SecretCollectionSession) throws(CofferError) -> R) throws(CofferError) -> R {
        try SecretServiceConnection.withDefaultCollection(timeout: configuration.timeout, body)
    }

    private func found(named id: ItemID, in session: SecretCollectionSession, now: Date) throws(CofferError) -> Found? {
        guard let identity = SecretServiceItemFormat.identity(id) else { return nil }
        return try found(by: [(id.itemClass, identity)], where: { _ in true }, in: session, now: now).first
    }

    /// Runs the searches and groups the live results that `include` accepts by identity.
    /// Expired items the searches meet are deleted on the way, as the other stores purge them,
    /// unless `purgingExpired` is false: then they are kept and returned.
    private func found(
        by searches: [(itemClass: ItemClass, attributes: [String: String])], where include: (ItemAttributes) -> Bool,
        in session: SecretCollectionSession, now: Date, purgingExpired: Bool = true
    ) throws(CofferError) -> [Found] {
        var byID: [ItemID: [(item: SecretServiceItem, attributes: ItemAttributes)]] = [:]
        for search in searches {
            for item in try session.search(search.attributes) {
                guard let attributes = SecretServiceItemFormat.decode(item, as: search.itemClass) else { continue }
                if purgingExpired, attributes.isExpired(at: now) {
                    try session.delete(item)
                } else if include(attributes) {
                    byID[attributes.id, default: []].append((item, attributes))
                }
            }
        }
        return byID.values.map { entries in
            let sorted = entries.sorted { SecretServiceItem.newestFirst($0.item, $1.item) }
            return Found(items: sorted.map(\.item), attributes: sorted[0].attributes)
        }
    }
}

/// Runs `body` with the bytes of `data`, keeping the typed error.
func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(CofferError) -> R) throws(CofferError) -> R {
    try data.withUnsafeBytes { bytes in Result { () throws(CofferError) in try body(bytes) } }.get()
}
