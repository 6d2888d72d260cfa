/// A key slot's `kdf`, `opslimit`, `memlimit` and `salt` columns, as stored; `nil` is SQL
/// NULL. What they hold is up to the slot's kind (docs/vault-format.md, 4.1), which checks them
/// (``KeySlotKind/check(_:slot:)``).
struct SlotParameters: Sendable, Equatable {
    var kdf: String?
    var opslimit: Int64?
    var memlimit: Int64?
    var salt: [UInt8]?

    /// All four NULL: the kinds whose key-encryption key needs no parameters.
    static let none = SlotParameters()

    /// The four columns, in that order, to bind to a statement.
    var values: [SQLiteValue] {
        [kdf.map { .text($0) } ?? .null, opslimit.map { .integer($0) } ?? .null,
         memlimit.map { .integer($0) } ?? .null, salt.map { .blob($0) } ?? .null]
    }
}
