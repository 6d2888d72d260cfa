/// Which programs an item belongs to: the program that created it (its owner) and the programs
/// allowed to read it besides (its access list). Stored inside the item's encrypted record
/// (docs/vault-format.md, 5.5).
package struct ItemAccess: Hashable, Sendable {
    /// The program that created the item; `nil` for an item made before vaults kept owners.
    package var owner: Program?
    /// The programs allowed besides the owner, sorted by their encoding, each once.
    package private(set) var allowed: [Program]

    /// The most programs an access list holds.
    package static let maxAllowed = 64

    /// An owner and an access list, which is sorted and rid of repeated programs.
    package init(owner: Program? = nil, allowed: [Program] = []) {
        self.owner = owner
        var seen = Set<[UInt8]>()
        self.allowed = allowed.map { ($0.encoded, $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
            .filter { seen.insert($0.0).inserted }.map(\.1)
    }

    /// No owner and an empty access list, as every item from before format version 3.
    package static let unowned = ItemAccess()

    /// Adds `program` to the access list, in place of any entry for the same program (the same
    /// executable, script, app and unit), so a new pin replaces the old. Returns whether the
    /// list changed.
    @discardableResult
    package mutating func insert(_ program: Program) -> Bool {
        guard !allowed.contains(program) else { return false }
        self = ItemAccess(owner: owner, allowed: allowed.filter { !$0.isSameProgram(as: program) } + [program])
        return true
    }

    /// Whether `program` is the item's owner: an item without one is nobody's.
    package func isOwned(by program: Program?) -> Bool {
        guard let owner, let program else { return false }
        return owner.matches(program)
    }

    /// Removes every entry for `program`, whatever their digests and pins. Returns how many went.
    @discardableResult
    package mutating func remove(_ program: Program) -> Int {
        let before = allowed.count
        allowed.removeAll { $0.isSameProgram(as: program) }
        return before - allowed.count
    }
}
