import Coffer
import CofferAgent

/// Per-application access on the Secret Service (docs/secret-service.md, "Other programs'
/// items"): what each caller sees of an item, and the decision, logged, before it reads or
/// changes one. The rules are ``CofferAgent/AccessGate``'s, as on every front door.
extension SecretServiceObjects {
    /// An item found at a path: its collection, row key, the item and its owner and access list.
    typealias FoundItem = (collection: ServedCollection, rowKey: [UInt8], item: Item, access: ItemAccess)

    /// How the caller behind `connection` sees an item with `access` under `policy`; every item
    /// is readable where no policy applies (`nil`: a share's grant decided what is listed).
    func view(
        of access: ItemAccess, at rowKey: [UInt8], in collection: ServedCollection, policy: AccessPolicy?, connection: String?,
        caller: Caller?
    ) -> CallerView {
        guard let policy else { return .readable(.shared) }
        switch AccessGate.verdict(policy: policy, access: access, program: caller?.program) {
        case .allowed(let decision):
            return .readable(decision)
        case .ask:
            guard let connection, grants.allows(.init(collection: collection.name, rowKey: rowKey), for: connection, caller: caller) else {
                return .locked
            }
            return .readable(.once)
        case .refused:
            return .hidden
        }
    }

    /// Decides whether the caller may `action` the item, and logs the decision (a refusal
    /// too) in the vault's audit log before anything is read or changed. Returns whether it
    /// may. Nobody is asked here: a client asks through `Unlock`.
    func admit(
        _ action: AuditEntry.Action, item id: ItemID, access: ItemAccess, at rowKey: [UInt8], in collection: ServedCollection,
        vault: any CollectionItems, connection: String, caller: Caller?
    ) throws(CofferError) -> Bool {
        let view = view(of: access, at: rowKey, in: collection, policy: try vault.accessPolicy(), connection: connection, caller: caller)
        let decision: AuditEntry.Decision
        if case .readable(let allowed) = view { decision = allowed } else { decision = .denied }
        if let log = vault.gated { try gate.record(action, item: id, in: log, by: caller?.program, decision: decision) }
        return view.isReadable
    }

    /// The item at `path` when the caller may `action` it (logged); `IsLocked` when it may not
    /// (logged too).
    func permittedItem(at path: String, for action: AuditEntry.Action, connection: String, caller: Caller?) throws(DBusError) -> FoundItem {
        var found = try item(at: path)
        let admitted = try withVault(found.collection) { vault throws(CofferError) in
            try admit(action, item: found.item.attributes.id, access: found.access, at: found.rowKey, in: found.collection, vault: vault,
                      connection: connection, caller: caller)
        }
        guard admitted else {
            found.item.secret.wipe()
            throw Self.lockedForCaller
        }
        return found
    }

    /// The answer to a caller that may not use an item now.
    static let lockedForCaller = DBusError.isLocked("the item is another program's; Unlock it to ask whether this program may use it")

    /// The paths of the collection's items whose attributes include `attributes` that the
    /// caller sees: those it reads, and those locked for it (`confirm`); items hidden from it
    /// (`strict`) are left out. `IsLocked` while the collection is locked.
    func visibleItems(
        in collection: ServedCollection, matching attributes: [String: String], connection: String?, caller: Caller?
    ) throws(DBusError) -> (readable: [String], locked: [String]) {
        try withVault(collection) { vault throws(CofferError) in
            let items = try vault.storedItems(withAttributes: attributes)
            let policy = try vault.accessPolicy()
            var readable: [String] = [], locked: [String] = []
            for item in items {
                let path = ObjectPaths.item(item.rowKey, in: collection.name)
                switch view(of: item.access, at: item.rowKey, in: collection, policy: policy, connection: connection, caller: caller) {
                case .readable: readable.append(path)
                case .locked: locked.append(path)
                case .hidden: break
                }
            }
            return (readable, locked)
        }
    }

    /// What `Unlock` must ask the person about for `path`: an item of an unlocked collection the
    /// caller may not read now; `nil` for anything else.
    func accessRequest(for path: String, in collection: ServedCollection, connection: String, caller: Caller?) -> AccessRequest? {
        guard case .item = ObjectPaths.target(of: path), var found = try? item(at: path) else { return nil }
        found.item.secret.wipe()
        guard let policy = try? withVault(collection, { vault throws(CofferError) in try vault.accessPolicy() }),
              !view(of: found.access, at: found.rowKey, in: collection, policy: policy, connection: connection, caller: caller).isReadable
        else { return nil }
        return AccessRequest(path: path, collection: collection, id: found.item.attributes.id, rowKey: found.rowKey)
    }
}
