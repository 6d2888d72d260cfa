import Foundation

/// The constants and byte constructions of the vault format, version 1.
///
/// docs/vault-format.md is the normative description; keep the two in step.
enum VaultFormat {
    /// Stored in `PRAGMA user_version` and bound into every associated data.
    static let version: UInt32 = 1
    /// `PRAGMA application_id`: the ASCII bytes "COFR".
    static let applicationID: Int32 = 0x434F_4652
    static let vaultIDLength = 16

    /// The vault id as lowercase hex, as ``Vault/id`` shows it and Secret Service slots name it.
    static func hexIdentifier(_ vaultID: [UInt8]) -> String {
        vaultID.map { String(format: "%02x", $0) }.joined()
    }

    /// `crypto_kdf` context for subkeys of the vault key.
    static let subkeyContext: StaticString = "CofferV1"
    static let recordKeyID: UInt64 = 1
    static let indexKeyID: UInt64 = 2
    static let keyCheckID: UInt64 = 3
    static let keyCheckLength = 16

    /// Associated data of an item record: `"coffer:item" 0x00 || u32be(version) || vault_id || row_key`.
    static func itemAssociatedData(vaultID: [UInt8], rowKey: [UInt8]) -> [UInt8] {
        itemAssociatedDataPrefix(vaultID: vaultID) + rowKey
    }

    /// Everything of an item's associated data but the row key, which is the same for a whole vault.
    static func itemAssociatedDataPrefix(vaultID: [UInt8]) -> [UInt8] {
        Array("coffer:item".utf8) + [0] + bigEndianBytes(version) + vaultID
    }

    /// Associated data of a wrapped vault key: `"coffer:slot" 0x00 || u32be(version) || vault_id || kind`.
    static func slotAssociatedData(vaultID: [UInt8], kind: KeySlotKind) -> [UInt8] {
        Array("coffer:slot".utf8) + [0] + bigEndianBytes(version) + vaultID + Array(kind.rawValue.utf8)
    }

    /// Blind-index input: `u8(class) || u32be(len) || service || u32be(len) || account`,
    /// names in Unicode NFC, UTF-8.
    static func blindIndexInput(_ id: ItemID) -> [UInt8] {
        var service = Normalization.nfc(id.service), account = Normalization.nfc(id.account)
        var input: [UInt8] = []
        input.reserveCapacity(9 + service.utf8.count + account.utf8.count)
        input.append(id.itemClass.rawValue)
        service.withUTF8 { appendLengthPrefixed($0, to: &input) }
        account.withUTF8 { appendLengthPrefixed($0, to: &input) }
        return input
    }

    private static func appendLengthPrefixed(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(contentsOf: bigEndianBytes(UInt32(bytes.count)))
        output.append(contentsOf: bytes)
    }

    static let schema = [
        """
        CREATE TABLE vault (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            vault_id BLOB NOT NULL,
            key_check BLOB NOT NULL,
            created_at INTEGER NOT NULL)
        """,
        """
        CREATE TABLE key_slots (
            slot_id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            kdf TEXT,
            opslimit INTEGER,
            memlimit INTEGER,
            salt BLOB,
            wrapped_key BLOB NOT NULL,
            created_at INTEGER NOT NULL)
        """,
        "CREATE TABLE items (row_key BLOB PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID",
    ]
}

func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
    bigEndianBytes(UInt32(bytes.count)) + bytes
}
