import Coffer
import Foundation

/// The binary seeds, made by the store's own encoder so they stay valid as the format is:
/// `coffer-fuzz --seed Fuzz/Corpus` rewrites `item-record/` and `slot-row/` files named `gen-*`.
enum Seeds {
    static func write(to root: String) throws {
        for (name, bytes) in itemRecords() { try save(bytes, "\(root)/item-record/gen-\(name)") }
        for (name, columns) in slotRows() { try save(columns.bytes, "\(root)/slot-row/gen-\(name)") }
    }

    private static func save(_ bytes: [UInt8], _ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func itemRecords() -> [(String, [UInt8])] {
        let created = Date(timeIntervalSince1970: 1_700_000_000), modified = Date(timeIntervalSince1970: 1_700_000_123.456)
        let minimal = ItemAttributes(id: .genericPassword(service: "example.com", account: "alice"), created: created, modified: modified)
        let full = ItemAttributes(
            id: .genericPassword(service: "Café ☕ service", account: "bob@example.com"), label: "Work mail", comment: "rotated\nyearly",
            custom: ["env": "prod", "owner": "ops", "Ünïcode": "välue"], created: created, modified: modified,
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        let internet = ItemAttributes(
            id: .internetPassword(server: "mail.example.com", account: "carol"), created: created, modified: modified,
            internet: InternetAttributes(protocol: "imaps", port: 993, path: "/inbox", authenticationType: "plain"))
        let encoded = ItemRecord.encode(minimal, secret: Data("hunter2".utf8))
        return [
            ("minimal", encoded),
            ("full", ItemRecord.encode(full, secret: Data((0...255).map { UInt8($0) }))),
            ("internet", ItemRecord.encode(internet, secret: Data("s3cret".utf8))),
            ("empty-secret", ItemRecord.encode(minimal, secret: Data())),
            ("truncated", Array(encoded.dropLast())),
            ("unknown-class", [0xFF] + encoded.dropFirst()),
        ]
    }

    /// Rows as docs/vault-format.md 4.1 describes them: KDF "argon2id13" with a 16-byte salt.
    private static func slotRows() -> [(String, SlotColumns)] {
        let wrapped = [UInt8](repeating: 0xA5, count: SlotRow.wrappedKeyLength)
        let salt = [UInt8](repeating: 0x5A, count: 16)
        func row(_ kind: String, kdf: String? = nil, ops: Int64? = nil, mem: Int64? = nil, salt: [UInt8]? = nil, wrapped: [UInt8] = wrapped) -> SlotColumns {
            SlotColumns(kind: kind, kdf: kdf, opslimit: ops, memlimit: mem, salt: salt, wrappedKey: wrapped)
        }
        return [
            ("passphrase", row("passphrase", kdf: "argon2id13", ops: 3, mem: 64 << 20, salt: salt)),
            ("keyfile", row("keyfile")),
            ("key", row("key")),
            ("secret-service", row("secret-service")),
            ("unknown-kind", row("future-kind", kdf: "scrypt", ops: 1, salt: [1, 2, 3], wrapped: [])),
            ("passphrase-short-salt", row("passphrase", kdf: "argon2id13", ops: 3, mem: 64 << 20, salt: Array(salt.prefix(15)))),
            ("passphrase-cost-too-high", row("passphrase", kdf: "argon2id13", ops: Int64.max, mem: -1, salt: salt)),
            ("keyfile-with-kdf", row("keyfile", kdf: "argon2id13")),
            ("key-short-wrapping", row("key", wrapped: Array(wrapped.dropLast()))),
        ]
    }
}
