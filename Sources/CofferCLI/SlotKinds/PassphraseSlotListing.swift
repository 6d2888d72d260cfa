import Coffer

/// A passphrase slot shows its Argon2id cost: `kdf` in JSON, `argon2id ops=3 mem=256MiB` in text.
enum PassphraseSlotListing: SlotKindListing {
    struct KDF: Encodable {
        let algorithm = "argon2id"
        let operations: UInt64
        let memoryBytes: UInt64
    }

    static func details(of slot: KeySlot) -> SlotDetails? {
        guard case .passphrase(let cost) = slot.kind else { return nil }
        return SlotDetails(
            member: "kdf", value: KDF(operations: cost.operations, memoryBytes: cost.memoryBytes),
            text: "argon2id ops=\(cost.operations) mem=\(cost.memoryBytes >> 20)MiB")
    }
}
