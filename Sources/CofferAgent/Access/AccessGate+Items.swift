import Coffer
import FoundationEssentials

/// The requests that are more than one item's read or delete: a write, which may create the
/// item, a listing and a removal by query. The same rules as ``AccessGate/authorize(_:item:in:at:by:cancellation:mayAsk:)``.
extension AccessGate {
    /// Sets an item for `program`. A new item is created with `program` as its owner (logged
    /// `write`, `owner`); an existing one is replaced only when `program` may use it, as a read
    /// needs (replacing another program's token is an attack), deciding and writing in one
    /// transaction when nobody needs to be asked. Returns `false`, with nothing written or
    /// logged, when the person would have to be asked and `mayAsk` is `false`.
    package func set(
        _ secret: Data, for id: ItemID, options: ItemOptions, in vault: Vault, at vaultPath: String, by program: Program?,
        cancellation: PrompterCommand.Run? = nil, mayAsk: Bool = true
    ) throws(CofferError) -> Bool {
        try refuseBrokered(.write, id, in: vault, by: program)
        let policy = try vault.accessPolicy()
        switch try vault.set(secret, for: id, options: options, owner: program, replacingIf: admitting(policy: policy, program: program)) {
        case .created:
            try record(.write, item: id, in: vault, by: program, decision: .owner)
        case .replaced(let access):
            try record(.write, item: id, in: vault, by: program, decision: reason(policy: policy, access: access, program: program))
        case .refused:
            switch try authorize(.write, item: id, in: vault, at: vaultPath, by: program, cancellation: cancellation, mayAsk: mayAsk) {
            case .mustAsk:
                return false
            case .allowed:
                try vault.set(secret, for: id, options: options, owner: program)
            case .absent:
                // Removed while the person was asked: written as new.
                try vault.set(secret, for: id, options: options, owner: program)
                try record(.write, item: id, in: vault, by: program, decision: .owner)
            }
        }
        return true
    }

    /// The names and attributes of the items `query` selects that `program` may see listed,
    /// never a secret, nor any item of a brokered login (``BrokeredSessions``): every item under `open` and `confirm` (as Apple's keychain lists them);
    /// under `strict` only the items it owns or is listed on. One `list` entry goes to the log
    /// (`open` under open, else `allowed`).
    package func list(_ query: ItemQuery, in vault: Vault, by program: Program?) throws(CofferError) -> [ItemAttributes] {
        let policy = try vault.accessPolicy()
        let stored = try vault.storedItems(matching: query).filter { !BrokeredSessions.isBrokered($0.attributes.id) }
        let shown = grantedByShare ? stored.map(\.attributes) : Self.listed(stored, policy: policy, program: program)
        try record(.list, in: vault, by: program, decision: grantedByShare ? .shared : policy == .open ? .open : .allowed)
        return shown
    }

    /// The listing rule of ``list(_:in:by:)``, on items already read.
    package static func listed(_ items: [StoredItem], policy: AccessPolicy, program: Program?) -> [ItemAttributes] {
        guard policy == .strict else { return items.map(\.attributes) }
        let admits = admits(policy: policy, program: program)
        return items.filter { admits($0.access) }.map(\.attributes)
    }

    /// Removes the items `query` selects that `program` may use without anyone being asked (never
    /// an item of a brokered login, which stays unmentioned):
    /// every item under `open`; under `confirm` and `strict` the items it owns or is listed on.
    /// Nobody is asked about a bulk removal: the other items stay, each logged as refused
    /// (`delete`, `denied`); each removed item is logged too. Returns how many were removed;
    /// throws ``CofferError/accessDenied(program:)`` when the query selected items and every one
    /// was refused.
    package func removeAll(matching query: ItemQuery, in vault: Vault, by program: Program?) throws(CofferError) -> Int {
        let policy = try vault.accessPolicy()
        let (removed, refused) = try vault.removeAll(
            matching: query, where: admitting(policy: policy, program: program), sparing: BrokeredSessions.isBrokered)
        for item in removed {
            try record(.delete, item: item.attributes.id, in: vault, by: program, decision: reason(policy: policy, access: item.access, program: program))
        }
        for item in refused { try record(.delete, item: item.attributes.id, in: vault, by: program, decision: .denied) }
        if removed.isEmpty, !refused.isEmpty { throw .accessDenied(program: Self.name(of: program)) }
        return removed.count
    }

    /// Whether `program` may use an item with a given access under `policy` without anyone
    /// being asked.
    static func admits(policy: AccessPolicy, program: Program?) -> (ItemAccess) -> Bool {
        { access in
            if case .allowed = verdict(policy: policy, access: access, program: program) { return true }
            return false
        }
    }

    /// Whether this gate lets `program` use an item with a given access under `policy` without
    /// anyone being asked.
    private func admitting(policy: AccessPolicy, program: Program?) -> (ItemAccess) -> Bool {
        grantedByShare ? { _ in true } : Self.admits(policy: policy, program: program)
    }

    /// Why an item that ``admitting(policy:program:)`` accepted was allowed.
    private func reason(policy: AccessPolicy, access: ItemAccess, program: Program?) -> AuditEntry.Decision {
        if case .allowed(let reason) = verdict(policy: policy, access: access, program: program) { return reason }
        return .denied
    }
}
