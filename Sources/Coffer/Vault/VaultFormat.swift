import CofferBase
import FoundationEssentials

/// The constants and byte constructions of the vault format, version 3 (and versions 1 and 2,
/// which every Coffer reads and migrates).
///
/// docs/vault-format.md is the normative description; keep the two in step.
enum VaultFormat {
    /// The version new vaults get and writers migrate to: `PRAGMA user_version`.
    static let version: UInt32 = 3
    /// Every version this code reads.
    static let readableVersions: ClosedRange<UInt32> = 1...3
    /// The version that added the attribute index.
    static let attributeIndexVersion: UInt32 = 2
    /// The version that added owners, access lists, the access policy and the audit log.
    static let accessVersion: UInt32 = 3
    /// The version bound into every associated data: records and slots are sealed as in
    /// version 1, whose plaintexts versions 2 and 3 only extend; the policy and the audit log,
    /// new in version 3, are in the first version of their sealing (docs/vault-format.md, 7).
    static let sealingVersion: UInt32 = 1
    /// `PRAGMA application_id`: the ASCII bytes "COFR".
    static let applicationID: Int32 = 0x434F_4652
    static let vaultIDLength = 16

    /// The vault id as lowercase hex, as ``Vault/id`` shows it and Secret Service slots name it.
    static func hexIdentifier(_ vaultID: [UInt8]) -> String {
        Hex.encode(vaultID)
    }

    /// `crypto_kdf` context for subkeys of the vault key.
    static let subkeyContext: StaticString = "CofferV1"
    static let recordKeyID: UInt64 = 1
    static let indexKeyID: UInt64 = 2
    static let keyCheckID: UInt64 = 3
    static let keyCheckLength = 16
    /// Version 2: the key of the attribute index's tokens.
    static let attributeKeyID: UInt64 = 4
    /// The length of one attribute token.
    static let attributeTokenLength = 16

    /// Associated data of an item record: `"coffer:item" 0x00 || u32be(1) || vault_id || row_key`.
    static func itemAssociatedData(vaultID: [UInt8], rowKey: [UInt8]) -> [UInt8] {
        itemAssociatedDataPrefix(vaultID: vaultID) + rowKey
    }

    /// Everything of an item's associated data but the row key, which is the same for a whole vault.
    static func itemAssociatedDataPrefix(vaultID: [UInt8]) -> [UInt8] {
        Array("coffer:item".utf8) + [0] + bigEndianBytes(sealingVersion) + vaultID
    }

    /// Associated data of a wrapped vault key: `"coffer:slot" 0x00 || u32be(1) || vault_id || kind`.
    static func slotAssociatedData(vaultID: [UInt8], kind: String) -> [UInt8] {
        Array("coffer:slot".utf8) + [0] + bigEndianBytes(sealingVersion) + vaultID + Array(kind.utf8)
    }

    /// Associated data of the access policy: `"coffer:policy" 0x00 || u32be(1) || vault_id`.
    static func policyAssociatedData(vaultID: [UInt8]) -> [UInt8] {
        Array("coffer:policy".utf8) + [0] + bigEndianBytes(sealingVersion) + vaultID
    }

    /// The size of the sealed policy: one byte and the box's 40.
    static let sealedPolicyLength = 1 + AEAD.overhead

    /// Associated data of an audit entry:
    /// `"coffer:audit" 0x00 || u32be(1) || vault_id || u64be(sequence)`.
    static func auditAssociatedData(vaultID: [UInt8], sequence: Int64) -> [UInt8] {
        Array("coffer:audit".utf8) + [0] + bigEndianBytes(sealingVersion) + vaultID + bigEndianBytes(UInt64(bitPattern: sequence))
    }

    /// The audit log keeps this many of the newest entries.
    static let maxAuditEntries: Int64 = 10_000
    /// The largest sealed audit entry a reader decrypts (an entry is at most about 10 KiB).
    static let maxSealedAuditEntryBytes = 16_384

    /// Blind-index input: `u8(class) || u32be(len) || service || u32be(len) || account`,
    /// names in Unicode NFC, UTF-8.
    static func blindIndexInput(_ id: ItemID) -> [UInt8] {
        blindIndexInput(
            itemClass: id.itemClass, service: Normalization.nfc(id.service).utf8, account: Normalization.nfc(id.account).utf8)
    }

    /// The blind-index input of names given as their bytes.
    static func blindIndexInput(itemClass: ItemClass, service: some Collection<UInt8>, account: some Collection<UInt8>) -> [UInt8] {
        var input: [UInt8] = []
        input.reserveCapacity(9 + service.count + account.count)
        input.append(itemClass.rawValue)
        withUnsafeBytes(of: UInt32(service.count).bigEndian) { input.append(contentsOf: $0) }
        input.append(contentsOf: service)
        withUnsafeBytes(of: UInt32(account.count).bigEndian) { input.append(contentsOf: $0) }
        input.append(contentsOf: account)
        return input
    }

    /// Accepts the versions this code reads and returns it; refuses a newer version as
    /// unsupported and any other as corrupt.
    @discardableResult
    static func checkVersion(_ version: Int64) throws(CofferError) -> UInt32 {
        guard version <= Int64(Self.version) else { throw .unsupportedFormatVersion(Int(clamping: version)) }
        guard version >= Int64(readableVersions.lowerBound) else { throw .corruptVault(reason: "format version \(version)") }
        return UInt32(version)
    }
}

func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
    bigEndianBytes(UInt32(bytes.count)) + bytes
}
