/// Which programs may read a vault's items without being asked (docs/security.md).
///
/// A vault keeps its policy encrypted (docs/vault-format.md, 8.1). A new vault's is
/// ``confirm``; a vault from before owners existed is migrated to ``open``, so nothing it
/// allowed stops working.
package enum AccessPolicy: String, Sendable, Hashable, CaseIterable {
    /// Every program reads every item.
    case open
    /// An item's owner and the programs on its access list read it; any other program is asked.
    case confirm
    /// An item's owner and the programs on its access list read it; any other is refused.
    case strict

    /// The policy's byte in the vault: 0, 1 or 2.
    var storedByte: UInt8 {
        switch self {
        case .open: 0
        case .confirm: 1
        case .strict: 2
        }
    }

    init?(storedByte: UInt8) {
        switch storedByte {
        case 0: self = .open
        case 1: self = .confirm
        case 2: self = .strict
        default: return nil
        }
    }
}
