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

    /// A systemd-creds slot's binding: the keys (host, tpm2, host+tpm2 or unknown), the PCRs and
    /// the TPM2 device stored in the slot (absent for systemd's default).
    struct SystemdCreds: Encodable {
        let keySource: String
        let pcrs: [Int]
        let tpm2Device: String?
    }

    let id: Int
    /// passphrase, keyfile, key, secret-service, systemd-creds, or the name of a kind this
    /// version does not know.
    let kind: String
    let kdf: KDF?
    let systemdCreds: SystemdCreds?
    let created: Date

    init(_ slot: KeySlot) {
        id = slot.id
        created = slot.created
        if case .systemdCredential(let binding) = slot.kind {
            systemdCreds = SystemdCreds(keySource: binding.keySource.description, pcrs: binding.pcrs, tpm2Device: binding.tpm2Device)
        } else {
            systemdCreds = nil
        }
        switch slot.kind {
        case .passphrase(let cost):
            kind = "passphrase"
            kdf = KDF(operations: cost.operations, memoryBytes: cost.memoryBytes)
        case .keyFile: (kind, kdf) = ("keyfile", nil)
        case .key: (kind, kdf) = ("key", nil)
        case .secretService: (kind, kdf) = ("secret-service", nil)
        case .systemdCredential: (kind, kdf) = ("systemd-creds", nil)
        case .other(let name): (kind, kdf) = (name, nil)
        }
    }
}
