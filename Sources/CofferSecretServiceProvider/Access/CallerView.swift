import Coffer

/// What one caller sees of one item (docs/secret-service.md, "Other programs' items"): the
/// vault's policy, the item's owner and access list (``CofferAgent/AccessGate``), and the
/// caller's `once` answers on this connection (``ConnectionGrants``) decide.
enum CallerView: Equatable {
    /// The caller reads and changes the item; the decision the audit log records.
    case readable(AuditEntry.Decision)
    /// `confirm`: listed, label and attributes shown, but locked for this caller; `Unlock`
    /// asks the person through the prompter.
    case locked
    /// `strict`: left out of every listing; addressed by its path it is locked and shows
    /// nothing but that.
    case hidden

    var isReadable: Bool {
        if case .readable = self { return true }
        return false
    }
}
