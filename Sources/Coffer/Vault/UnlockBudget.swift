/// The most Argon2id work one passphrase unlock may cost, whatever the vault file says.
///
/// A passphrase is tried against the vault's passphrase slots in ascending slot order until
/// one opens. Someone who can write the file could add expensive junk slots ahead of the real
/// one, so the passphrase slots as a whole are capped; a file beyond the caps is refused as
/// corrupt before any KDF runs, and no change to the slots may exceed them.
public enum UnlockBudget {
    /// The most passphrase slots a vault may have.
    public static let maxPassphraseSlots = 8
    /// The most Argon2id work (passes × memory) all passphrase slots together may cost: two
    /// SENSITIVE slots, about 5 s on the project's 2-core machine.
    public static let maxTotalWork: UInt64 = 2 * PassphraseCost.maximumWork

    /// Throws ``CofferError/corruptVault(reason:)`` when `costs` (every passphrase slot's) exceed the caps.
    static func check(_ costs: [PassphraseCost]) throws(CofferError) {
        if let problem = problem(with: costs) { throw .corruptVault(reason: problem) }
    }

    /// Throws ``CofferError/invalidArgument(reason:)`` when a change would leave the passphrase
    /// slots with `costs`, beyond the caps.
    static func checkChange(_ costs: [PassphraseCost]) throws(CofferError) {
        if let problem = problem(with: costs) { throw .invalidArgument(reason: problem) }
    }

    private static func problem(with costs: [PassphraseCost]) -> String? {
        if costs.count > maxPassphraseSlots {
            return "more than \(maxPassphraseSlots) passphrase slots"
        }
        if costs.reduce(UInt64(0), { $0 + $1.work }) > maxTotalWork {
            return "the passphrase slots together cost more Argon2id work than one unlock may"
        }
        return nil
    }
}
