/// Every kind of key slot this version of Coffer knows; a row of another kind is kept and
/// ignored (docs/vault-format.md, 7).
enum KeySlotKinds {
    static let all: [any KeySlotKind.Type] = [
        PassphraseSlot.self,
        KeyFileSlot.self,
        RawKeySlot.self,
        SecretServiceSlot.self,
        SystemdCredsSlot.self,
    ]

    /// The kind whose `kind` column is `name`, or `nil` for a kind this version does not know.
    static func named(_ name: String) -> (any KeySlotKind.Type)? {
        all.first { $0.name == name }
    }
}
