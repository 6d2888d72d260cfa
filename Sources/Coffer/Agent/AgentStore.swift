import CofferAgentWire
import FoundationEssentials

/// A vault the agent holds unlocked, used as any ``CredentialStore``: each call is one request
/// to the agent, which performs it on its own unlocked copy, for the program it identified at
/// connection (docs/security.md, "Per-application access").
///
/// ``Keychain/init(service:)`` uses the login vault this way. The agent may ask the person
/// whether this program may use another program's item, so an item call may wait as long as the
/// prompt does (150 s).
public struct AgentStore: CredentialStore {
    package let client: AgentClient
    /// The vault's real path, as the agent names it.
    package let vault: String
    /// Whether the store keeps one identified connection to the agent for its requests, opening
    /// it again when the agent has closed it (``KeptAgentConnection``). Coffer's own tools keep
    /// theirs from before they made themselves not dumpable, and must not open another later.
    package let keepsConnection: Bool

    package init(client: AgentClient, vault: String, keepsConnection: Bool = false) {
        self.client = client
        self.vault = vault
        self.keepsConnection = keepsConnection
    }

    /// Sends `request` to the agent for this store's vault; an `error` reply is thrown, and
    /// `not held` is ``CofferError/locked``.
    package func send(_ request: AgentRequest) throws(CofferError) -> AgentReply {
        if keepsConnection, !KeptAgentConnection.isKept(for: client.path) {
            KeptAgentConnection.open(path: client.path, timeout: AgentClient.holdsTimeout)
        }
        let reply: AgentReply
        do {
            reply = try client.send(request)
        } catch .noAgent {
            throw LoginKeychain.unavailable(.noAgent, at: client.path)
        } catch .stale(let reason) {
            throw LoginKeychain.unavailable(.stale(reason), at: client.path)
        } catch {
            throw .storageUnavailable(reason: "the agent: \(error)")
        }
        return try reply.succeeded()
    }

    public func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        try requests.set(secret, for: id, options: options)
    }

    public func item(for id: ItemID) throws(CofferError) -> Item? {
        try requests.item(for: id)
    }

    public func secret(for id: ItemID) throws(CofferError) -> Data? {
        try requests.secret(for: id)
    }

    @discardableResult
    public func remove(_ id: ItemID) throws(CofferError) -> Bool {
        try requests.remove(id)
    }

    public func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        try requests.items(matching: query)
    }

    @discardableResult
    public func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        try requests.removeAll(matching: query)
    }

    private var requests: AgentRequestStore {
        AgentRequestStore(vault: vault) { request throws(CofferError) in try send(request) }
    }
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
    package static let holdsTimeout = AgentTimeouts.holds
    /// How long a command waits for an item request (``AgentTimeouts/item``).
    package static let itemTimeout = AgentTimeouts.item
}
