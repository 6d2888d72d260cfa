import Foundation

/// A vault the agent holds unlocked, used as any ``CredentialStore``: each call is one request
/// to the agent, which performs it on its own unlocked copy. Get one with
/// ``AgentClient/store(for:)``, which first asks whether the agent holds the vault.
package struct AgentStore: CredentialStore {
    package let client: AgentClient
    /// The vault's real path.
    package let vault: String

    private func send(_ request: AgentRequest) throws(CofferError) -> AgentReply {
        let reply: AgentReply
        do { reply = try client.send(request) } catch { throw .storageUnavailable(reason: "the agent: \(error)") }
        switch reply {
        case .failure(let error): throw error
        case .notHeld: throw .locked
        default: return reply
        }
    }

    package func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        _ = try send(.set(vault: vault, id: id, secret: secret, options: options))
    }

    package func item(for id: ItemID) throws(CofferError) -> Item? {
        guard case .item(let item) = try send(.item(vault: vault, id: id)) else { throw Self.unexpected }
        return item
    }

    package func secret(for id: ItemID) throws(CofferError) -> Data? {
        guard case .secret(let secret) = try send(.secret(vault: vault, id: id)) else { throw Self.unexpected }
        return secret
    }

    @discardableResult
    package func remove(_ id: ItemID) throws(CofferError) -> Bool {
        guard case .count(let count) = try send(.remove(vault: vault, id: id)) else { throw Self.unexpected }
        return count > 0
    }

    package func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        guard case .items(let items) = try send(.items(vault: vault, query: query)) else { throw Self.unexpected }
        return items
    }

    @discardableResult
    package func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        guard case .count(let count) = try send(.removeAll(vault: vault, query: query)) else { throw Self.unexpected }
        return count
    }

    private static let unexpected = CofferError.storageUnavailable(reason: "the agent answered another request")
}

extension AgentClient {
    /// The vault at `path` (a real path) through the agent, when the agent holds it unlocked
    /// with current keys; `nil` when it does not (never unlocked there, forgotten, or rotated
    /// elsewhere, which makes the agent forget it now). An agent that refuses the question (busy,
    /// or another user's) throws, so the command can say why it unlocks the vault itself.
    /// A live agent answers `holds` at once, so a stopped or stuck one is given up on after
    /// ``holdsTimeout`` and the command unlocks the vault itself.
    package func store(for path: String) throws(AgentSocket.Unreachable) -> AgentStore? {
        var asking = self
        asking.timeout = min(timeout, Self.holdsTimeout)
        switch try asking.send(.holds(vault: path)) {
        case .done: return AgentStore(client: self, vault: path)
        case .failure(let error): throw .broken("the agent refused: \(error)")
        default: return nil
        }
    }

    /// How long a command waits for the agent to say whether it holds a vault.
    package static let holdsTimeout = Duration.seconds(3)
    /// How long a command waits for an item request: the agent may first ask the person
    /// whether this program may use the item, and a prompter has 120 s to answer.
    package static let itemTimeout = Duration.seconds(150)
}
