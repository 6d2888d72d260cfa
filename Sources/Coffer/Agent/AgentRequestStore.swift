import FoundationEssentials

/// A ``CredentialStore`` whose every call is one ``AgentRequest`` for one vault, handed to
/// `send`: over the socket (``AgentStore``), or, in the agent, straight to its request handler
/// for a credential helper's `get` (`helperGet`). `send` throws an `error` reply and turns
/// `not held` into ``CofferError/locked``.
package struct AgentRequestStore: CredentialStore {
    /// The vault's real path, as the agent names it.
    package let vault: String
    private let send: @Sendable (AgentRequest) throws(CofferError) -> AgentReply

    package init(vault: String, send: @escaping @Sendable (AgentRequest) throws(CofferError) -> AgentReply) {
        self.vault = vault
        self.send = send
    }

    package func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        // Checked here as every store checks it: a request past the limits cannot be encoded.
        try Limits.checkItem(secret, for: id, options: options)
        _ = try send(.set(vault: vault, id: id, secret: secret, options: options))
    }

    package func item(for id: ItemID) throws(CofferError) -> Item? {
        try id.validate()
        guard case .item(let item) = try send(.item(vault: vault, id: id)) else { throw Self.unexpected }
        return item
    }

    package func secret(for id: ItemID) throws(CofferError) -> Data? {
        try id.validate()
        guard case .secret(let secret) = try send(.secret(vault: vault, id: id)) else { throw Self.unexpected }
        return secret
    }

    @discardableResult
    package func remove(_ id: ItemID) throws(CofferError) -> Bool {
        try id.validate()
        guard case .count(let count) = try send(.remove(vault: vault, id: id)) else { throw Self.unexpected }
        return count > 0
    }

    package func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        try ItemPage.all { after throws(CofferError) in try send(.items(vault: vault, query: query, after: after)) }
    }

    @discardableResult
    package func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        guard case .count(let count) = try send(.removeAll(vault: vault, query: query)) else { throw Self.unexpected }
        return count
    }

    private static let unexpected = CofferError.storageUnavailable(reason: "the agent answered another request")
}
