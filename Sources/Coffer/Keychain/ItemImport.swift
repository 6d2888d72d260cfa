import FoundationEssentials

/// Copies items into a store without ever deleting or silently overwriting anything: run it
/// twice and the second run copies nothing.
///
/// ```swift
/// let source = try SecretServiceStore().itemsWithSecrets(matching: ItemQuery(service: "mail"))
/// let report = try ItemImport.copy(source, into: vault)
/// ```
public enum ItemImport {
    /// What happened to one item.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// Copied: the destination did not hold it, or held another secret and `replacing` was set.
        case copied
        /// The destination already holds this item with the same secret.
        case unchanged
        /// The destination holds another secret for this item; kept, as `replacing` was not set.
        case conflict
        /// The item has expired; not copied.
        case expired
    }

    /// One item offered, and what happened to it.
    public struct Entry: Sendable, Hashable {
        public let id: ItemID
        public let outcome: Outcome
    }

    /// The outcome of every item offered, in the order given.
    public struct Report: Sendable, Hashable {
        public var entries: [Entry]

        /// How many items had `outcome`.
        public func count(_ outcome: Outcome) -> Int { entries.filter { $0.outcome == outcome }.count }
    }

    /// Copies each of `items` into `destination` with its label, comment, custom attributes and
    /// expiry; items that have expired by `now` are skipped. An item the destination already
    /// holds is left alone, unless its secret differs and `replacing` is set.
    public static func copy(
        _ items: [Item], into destination: any CredentialStore, replacing: Bool = false, now: Date = Date()
    ) throws(CofferError) -> Report {
        var report = Report(entries: [])
        for item in items {
            let id = item.attributes.id
            let outcome: Outcome
            if item.attributes.isExpired(at: now) {
                outcome = .expired
            } else if let existing = try destination.secret(for: id) {
                outcome = existing == item.secret ? .unchanged : (replacing ? .copied : .conflict)
            } else {
                outcome = .copied
            }
            if outcome == .copied { try destination.set(item.secret, for: id, options: item.attributes.options) }
            report.entries.append(Entry(id: id, outcome: outcome))
        }
        return report
    }
}
