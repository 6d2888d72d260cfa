import CSodium

/// The Argon2id cost of turning a passphrase into a key: `crypto_pwhash`'s opslimit and memlimit.
///
/// New passphrase slots use ``moderate`` unless the vault's configuration says otherwise.
/// The cost is stored with each slot, so a vault keeps opening after the default changes.
public struct PassphraseCost: Sendable, Hashable, CustomStringConvertible {
    /// Argon2id passes (`opslimit`).
    public let operations: UInt64
    /// Argon2id memory in bytes (`memlimit`).
    public let memoryBytes: UInt64

    /// Creates a cost. Values outside ``acceptedOperations`` or ``acceptedMemoryBytes`` are refused when used.
    public init(operations: UInt64, memoryBytes: UInt64) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    /// libsodium's INTERACTIVE cost: 2 passes, 64 MiB (about 70 ms).
    public static let interactive = PassphraseCost(
        operations: UInt64(crypto_pwhash_argon2id_opslimit_interactive()),
        memoryBytes: UInt64(crypto_pwhash_argon2id_memlimit_interactive()))
    /// libsodium's MODERATE cost, the default: 3 passes, 256 MiB (about 0.45 s).
    public static let moderate = PassphraseCost(
        operations: UInt64(crypto_pwhash_argon2id_opslimit_moderate()),
        memoryBytes: UInt64(crypto_pwhash_argon2id_memlimit_moderate()))
    /// libsodium's SENSITIVE cost: 4 passes, 1 GiB (about 2.6 s).
    public static let sensitive = PassphraseCost(
        operations: UInt64(crypto_pwhash_argon2id_opslimit_sensitive()),
        memoryBytes: UInt64(crypto_pwhash_argon2id_memlimit_sensitive()))

    /// Pass counts Coffer accepts, from a new slot or from a vault file.
    public static let acceptedOperations: ClosedRange<UInt64> = 1...16
    /// Memory sizes Coffer accepts: 8 KiB to 1 GiB (SENSITIVE's).
    public static let acceptedMemoryBytes: ClosedRange<UInt64> = 8192...(1 << 30)
    /// The most work one slot may cost: ``sensitive``'s 4 passes over 1 GiB (about 2.6 s).
    /// With the memory cap, this keeps a hostile file from stalling an unlock.
    public static let maximumWork: UInt64 = 4 << 30

    /// The Argon2id work: passes × memory, in byte-passes. Costs compare by it.
    public var work: UInt64 { operations * memoryBytes }

    /// Whether both values are within the accepted ranges and the work within ``maximumWork``.
    public var isAccepted: Bool {
        Self.acceptedOperations.contains(operations) && Self.acceptedMemoryBytes.contains(memoryBytes)
            && work <= Self.maximumWork
    }

    public var description: String { "Argon2id(ops: \(operations), mem: \(memoryBytes >> 20) MiB)" }
}
