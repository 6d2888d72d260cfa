import Coffer
import Foundation

/// One key slot as `slots` and `doctor` print it, in text or JSON.
struct SlotSummary: Encodable {
    /// The Argon2id cost of a passphrase slot.
    struct KDF: Encodable {
        let algorithm = "argon2id"
        let operations: UInt64
        let memoryBytes: UInt64
    }

    let id: Int
    /// passphrase, keyfile, key, secret-service, or the name of a kind this version does not know.
    let kind: String
    let kdf: KDF?
    let created: Date

    init(_ slot: KeySlot) {
        id = slot.id
        created = slot.created
        switch slot.kind {
        case .passphrase(let cost):
            kind = "passphrase"
            kdf = KDF(operations: cost.operations, memoryBytes: cost.memoryBytes)
        case .keyFile: (kind, kdf) = ("keyfile", nil)
        case .key: (kind, kdf) = ("key", nil)
        case .secretService: (kind, kdf) = ("secret-service", nil)
        case .other(let name): (kind, kdf) = (name, nil)
        }
    }
}
