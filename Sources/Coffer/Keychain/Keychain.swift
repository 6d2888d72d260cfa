import FoundationEssentials

/// The one-line API for the common case: secrets for one service, by account.
///
/// ```swift
/// let keychain = try Keychain(service: "com.example.app")   // the login keychain, through the agent
/// try keychain.set("s3cret", for: "john")
/// let password = try keychain.string(for: "john")   // "s3cret"
/// ```
///
/// Reads return `nil` only when the store was read and the item is absent. A locked or
/// unreachable store throws (``CofferError/locked``, ``CofferError/storageUnavailable(reason:)``,
/// ``CofferError/secretServiceUnavailable(reason:)``, ``CofferError/timeout``), so "cannot tell"
/// never looks like "not there".
public struct Keychain: Sendable {
    /// The service (or, for internet passwords, the server) every item belongs to.
    public let service: String
    /// The class of every item: generic passwords unless created with ``init(server:store:)``.
    public let itemClass: ItemClass
    /// Where the items live.
    public let store: any CredentialStore

    /// A keychain of generic passwords for `service` in `store`.
    public init(service: String, store: any CredentialStore) {
        self.service = service
        self.itemClass = .genericPassword
        self.store = store
    }

    /// A keychain of internet passwords for `server` in `store`.
    public init(server: String, store: any CredentialStore) {
        self.service = server
        self.itemClass = .internetPassword
        self.store = store
    }

    /// The app's keychain for `service`: the user's login keychain through the agent
    /// (``LoginKeychain``), with no unlock argument. The agent knows which program this is, and
    /// makes it the owner of what it stores.
    ///
    /// Throws ``CofferError/agentUnavailable(reason:)`` within ``LoginKeychain/connectTimeout``
    /// when no agent runs, saying how to start one; it never opens a vault in process instead
    /// (``init(service:fallback:)`` does, when asked).
    public init(service: String) throws(CofferError) {
        self.init(service: service, store: try LoginKeychain.store())
    }

    /// The login keychain as ``init(service:)``, or, when no agent answers
    /// (``CofferError/agentUnavailable(reason:)`` and nothing else), the app's own `fallback`.
    public init(service: String, fallback: Fallback) throws(CofferError) {
        do throws(CofferError) {
            try self.init(service: service)
        } catch .agentUnavailable {
            switch fallback {
            case .vault(let url, let credential): try self.init(service: service, vault: url, unlock: credential)
            }
        }
    }

    /// A keychain for `service` in the vault at `vault` (default: ``Vault/defaultURL(name:)``),
    /// which is created with `credential` as its first key slot if it does not exist.
    public init(
        service: String, vault: URL? = nil, unlock credential: VaultCredential,
        configuration: Vault.Configuration = Vault.Configuration()
    ) throws(CofferError) {
        let url = if let vault { vault } else { try Vault.defaultURL() }
        self.init(service: service, store: try Vault.openOrCreate(at: url, unlock: credential, configuration: configuration))
    }

    /// The identity of `account`'s item.
    public func id(for account: String) -> ItemID {
        ItemID(itemClass: itemClass, service: service, account: account)
    }

    /// Stores text for `account`, replacing any existing item atomically.
    ///
    /// In a vault, a new item is owned by this process's executable, and an item that exists
    /// keeps its owner (``Vault/set(_:for:options:)``).
    public func set(_ value: String, for account: String, options: ItemOptions = ItemOptions()) throws(CofferError) {
        try store.set(Data(value.utf8), for: id(for: account), options: options)
    }

    /// Stores bytes for `account`, replacing any existing item atomically. In a vault, a new
    /// item is owned by this process's executable, as with text.
    public func set(_ value: Data, for account: String, options: ItemOptions = ItemOptions()) throws(CofferError) {
        try store.set(value, for: id(for: account), options: options)
    }

    /// The text stored for `account`, or `nil` if there is none. Throws ``CofferError/notUTF8``
    /// for binary secrets.
    public func string(for account: String) throws(CofferError) -> String? {
        guard let data = try store.secret(for: id(for: account)) else { return nil }
        guard let text = String(validating: data, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    /// The bytes stored for `account`, or `nil` if there is none.
    public func data(for account: String) throws(CofferError) -> Data? {
        try store.secret(for: id(for: account))
    }

    /// The text stored for `account`. Read-only: Swift setters cannot throw, and a write that
    /// could fail silently has no place in a keychain. Use ``set(_:for:options:)-(String,_,_)``.
    public subscript(account: String) -> String? {
        get throws(CofferError) { try string(for: account) }
    }

    /// The attributes of `account`'s item, or `nil` if there is none.
    public func attributes(for account: String) throws(CofferError) -> ItemAttributes? {
        try store.item(for: id(for: account))?.attributes
    }

    /// Whether `account` has an item.
    public func contains(_ account: String) throws(CofferError) -> Bool {
        try store.secret(for: id(for: account)) != nil
    }

    /// Removes `account`'s item. Returns whether there was one.
    @discardableResult
    public func remove(_ account: String) throws(CofferError) -> Bool {
        try store.remove(id(for: account))
    }

    /// Removes every item of this service. Returns how many were removed.
    @discardableResult
    public func removeAll() throws(CofferError) -> Int {
        try store.removeAll(matching: ItemQuery(itemClass: itemClass, service: service))
    }

    /// The accounts of this service, sorted.
    public func allKeys() throws(CofferError) -> [String] {
        try items().map(\.id.account)
    }

    /// The attributes of this service's items whose custom attributes include `custom`.
    public func items(matching custom: [String: String] = [:]) throws(CofferError) -> [ItemAttributes] {
        try store.items(matching: ItemQuery(itemClass: itemClass, service: service, custom: custom))
    }
}
