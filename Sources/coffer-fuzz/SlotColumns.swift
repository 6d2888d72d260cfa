/// A `key_slots` row's checked columns, packed in fuzz inputs as: a byte of NULL flags (bit 0
/// kdf, 1 opslimit, 2 memlimit, 3 salt), then `u8(length) || kind`, `u8(length) || kdf`,
/// `i64be(opslimit)`, `i64be(memlimit)`, `u8(length) || salt`, and the wrapped key as the rest.
/// A short input leaves the remaining columns empty or zero.
struct SlotColumns {
    var kind = ""
    var kdf: String?
    var opslimit: Int64?
    var memlimit: Int64?
    var salt: [UInt8]?
    var wrappedKey: [UInt8] = []

    init(kind: String, kdf: String?, opslimit: Int64?, memlimit: Int64?, salt: [UInt8]?, wrappedKey: [UInt8]) {
        (self.kind, self.kdf, self.opslimit, self.memlimit, self.salt, self.wrappedKey) = (kind, kdf, opslimit, memlimit, salt, wrappedKey)
    }

    init(_ bytes: [UInt8]) {
        var rest = bytes[...]
        func take(_ count: Int) -> [UInt8] {
            defer { rest = rest.dropFirst(count) }
            return Array(rest.prefix(count))
        }
        func text() -> String { String(decoding: take(Int(take(1).first ?? 0)), as: UTF8.self) }
        func integer() -> Int64 { Int64(bitPattern: take(8).reduce(0) { $0 << 8 | UInt64($1) }) }
        let nulls = take(1).first ?? 0
        kind = text()
        let kdf = text(), opslimit = integer(), memlimit = integer(), salt = take(Int(take(1).first ?? 0))
        self.kdf = nulls & 1 == 0 ? kdf : nil
        self.opslimit = nulls & 2 == 0 ? opslimit : nil
        self.memlimit = nulls & 4 == 0 ? memlimit : nil
        self.salt = nulls & 8 == 0 ? salt : nil
        wrappedKey = Array(rest)
    }

    /// The packed form that ``init(_:)`` reads back.
    var bytes: [UInt8] {
        func text(_ value: [UInt8]) -> [UInt8] { [UInt8(value.count)] + value }
        func integer(_ value: Int64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let nulls: UInt8 = (kdf == nil ? 1 : 0) | (opslimit == nil ? 2 : 0) | (memlimit == nil ? 4 : 0) | (salt == nil ? 8 : 0)
        return [nulls] + text(Array(kind.utf8)) + text(Array((kdf ?? "").utf8)) + integer(opslimit ?? 0)
            + integer(memlimit ?? 0) + text(salt ?? []) + wrappedKey
    }
}
