import Coffer
import Foundation

/// The items a share (`coffer agent share`) serves, as the provider's one collection in a
/// sandbox (`coffer agent start --secret-service --upstream SOCKET`): every read and write is a
/// request on the share's socket, so this process holds no key and no vault file, and the share's
/// grant alone decides what exists here and what may be written (docs/secret-service.md,
/// "Inside a sandbox").
///
/// An item's row key, hence its object path, is a hash of its identity (class, service,
/// account): the same item keeps its path for as long as it exists, across restarts too. A share
/// that stops answering (ended, or its agent gone) makes the collection locked, never empty.
/// Used on the main-loop thread only.
final class UpstreamItems: CollectionItems {
    /// The share's socket.
    let socket: String
    private let share: AgentStore
    /// The identity of each item seen, by row key, as last listed (or written here).
    private var known: [[UInt8]: ItemID] = [:]

    /// How long one request to the share may take: a share never asks anyone, so it answers at once.
    static let timeout = Duration.seconds(5)

    /// What a client is told when the share refuses a write (read-only, or outside its grant).
    static let refusedWrite = "the share this Secret Service serves does not let this item be written (it is read-only, or the item is outside it)"

    init(socket: String) {
        self.socket = socket
        // The share serves its own vault whatever vault a request names.
        share = AgentStore(client: AgentClient(path: socket, timeout: Self.timeout), vault: "/")
    }

    /// Whether the share answers and its agent holds the shared vault unlocked.
    var isAvailable: Bool {
        guard case .done? = try? share.client.send(.holds(vault: share.vault)) else { return false }
        return true
    }

    func storedItems(withAttributes attributes: [String: String]) throws(CofferError) -> [StoredItem] {
        let listed = try upstream { () throws(CofferError) in try share.items(matching: ItemQuery()) }
        known = Dictionary(listed.map { (Self.rowKey(of: $0.id), $0.id) }) { first, _ in first }
        let matches = ItemAttributes.matcher(for: attributes)
        return listed.filter(matches).map { StoredItem(rowKey: Self.rowKey(of: $0.id), attributes: $0, access: .unowned) }
    }

    func storedItemWithAccess(atRowKey rowKey: [UInt8]) throws(CofferError) -> (item: Item, access: ItemAccess)? {
        guard let id = try identity(at: rowKey) else { return nil }
        guard let item = try upstream({ () throws(CofferError) in try share.item(for: id) }) else {
            known[rowKey] = nil
            return nil
        }
        return (item, .unowned)
    }

    /// None: the agent behind the share decided what the share serves.
    func accessPolicy() throws(CofferError) -> AccessPolicy? { nil }

    /// None here: the agent logs every request through the share in the vault's audit log.
    var gated: Vault? { nil }

    func rowKey(for id: ItemID) throws(CofferError) -> [UInt8] { Self.rowKey(of: id) }

    /// Sets the item through the share. The agent keeps an existing item's owner; a new one's is
    /// the program it identifies for this process.
    @discardableResult
    func store(_ secret: Data, for id: ItemID, options: ItemOptions, owner: Program?) throws(CofferError) -> [UInt8] {
        try upstream { () throws(CofferError) in try share.set(secret, for: id, options: options) }
        let rowKey = Self.rowKey(of: id)
        known[rowKey] = id
        return rowKey
    }

    /// Sets the item `id`, then removes the one at `old` when that is another item: a failure
    /// between the two leaves both, never neither.
    func move(from old: [UInt8], to id: ItemID, secret: Data, options: ItemOptions) throws(CofferError) -> [UInt8] {
        guard let previous = try identity(at: old) else { throw .itemNotFound }
        let rowKey = try store(secret, for: id, options: options, owner: nil)
        if previous != id {
            _ = try upstream { () throws(CofferError) in try share.remove(previous) }
            known[old] = nil
        }
        return rowKey
    }

    @discardableResult
    func removeStoredItem(atRowKey rowKey: [UInt8]) throws(CofferError) -> Bool {
        guard let id = try identity(at: rowKey) else { return false }
        known[rowKey] = nil
        return try upstream { () throws(CofferError) in try share.remove(id) }
    }

    /// The identity of the item at `rowKey`, listing the share's items again when it is not known.
    private func identity(at rowKey: [UInt8]) throws(CofferError) -> ItemID? {
        if let id = known[rowKey] { return id }
        _ = try storedItems(withAttributes: [:])
        return known[rowKey]
    }

    /// A share that cannot be reached, or whose vault is locked, is a locked collection: what
    /// it holds cannot be told now, which is not the same as nothing.
    private func upstream<R>(_ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        do throws(CofferError) {
            return try body()
        } catch .agentUnavailable, .storageUnavailable {
            throw .locked
        }
    }

    /// SHA-256 of a fixed prefix and the item's identity as the agent protocol encodes it.
    static func rowKey(of id: ItemID) -> [UInt8] {
        SHA256Hasher.digest(Array("coffer upstream item\0".utf8) + AgentRequest.encode(id))
    }
}
