/// One kind of key slot (docs/vault-format.md, 4.1): its `kind` column, the rules on its
/// ``SlotParameters``, how it shows, and its limits.
///
/// Each kind is one type in its own file, beside the ``SlotOpener`` that opens and makes its
/// slots and the ``VaultCredential`` factories that name it; ``KeySlotKinds`` lists them.
protocol KeySlotKind: Sendable {
    /// The `kind` column, also bound into every wrapping of the vault key (4.2).
    static var name: String { get }

    /// Whether a vault may be created with a slot of this kind alone: `false` for kinds whose
    /// key lives outside the vault file (a keyring, a machine), so losing it never loses the vault.
    static var mayCreateVault: Bool { get }

    /// The error when a credential of this kind opens none of the vault's slots.
    static var mismatch: CofferError { get }

    /// Throws ``CofferError/corruptVault(reason:)`` when the parameters of slot `slot` break
    /// this kind's rules (4.1). The default: all four columns NULL.
    static func check(_ parameters: SlotParameters, slot: Int64) throws(CofferError)

    /// A slot with these (checked) parameters as the API shows it, and the words that
    /// ``KeySlot/description`` gives after the slot number.
    static func describe(_ parameters: SlotParameters) -> (kind: KeySlot.Kind, summary: String)

    /// Checks, before any slot is tried, what opening one of the vault's `rows` may cost.
    /// The default checks nothing.
    static func checkBeforeOpening(_ rows: [SlotRow]) throws(CofferError)

    /// Checks, inside the transaction that adds it, that a new slot with `parameters` keeps
    /// the vault's `rows` within this kind's limits. The default checks nothing.
    static func checkAdding(_ parameters: SlotParameters, to rows: [SlotRow]) throws(CofferError)

    /// Deletes what a removed slot kept outside the vault file, where it can; never throws,
    /// since the slot is gone already. The default has nothing to delete.
    static func forget(_ removed: SlotRow, vaultID: [UInt8], secretService: SecretService.Configuration)
}

extension KeySlotKind {
    static var mayCreateVault: Bool { true }
    static var mismatch: CofferError { .wrongKey }

    static func check(_ parameters: SlotParameters, slot: Int64) throws(CofferError) {
        guard parameters == SlotParameters.none else {
            throw .corruptVault(reason: "key slot \(slot) (\(name)) has KDF parameters")
        }
    }

    static func checkBeforeOpening(_ rows: [SlotRow]) throws(CofferError) {}
    static func checkAdding(_ parameters: SlotParameters, to rows: [SlotRow]) throws(CofferError) {}
    static func forget(_ removed: SlotRow, vaultID: [UInt8], secretService: SecretService.Configuration) {}
}
