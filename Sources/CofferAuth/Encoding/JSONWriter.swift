import Foundation

/// Compact JSON text written member by member, for what Coffer stores on every refresh (the
/// OpenID session): `JSONEncoder` with `Codable` took 40 µs for one session, this a few
/// (docs/performance.md, the refresh). Strings are escaped as RFC 8259 §7 requires (the quote,
/// the backslash and the control characters); everything else is written as UTF-8.
struct JSONWriter {
    private static let hex = Array("0123456789abcdef".utf8)

    private(set) var bytes: [UInt8] = []
    /// For each open object, whether a member was written in it already.
    private var written: [Bool] = []

    init() {
        bytes.reserveCapacity(2048)
    }

    /// Writes an object whose members `body` writes.
    mutating func object(_ body: (inout JSONWriter) throws(EncodingError) -> Void) throws(EncodingError) {
        bytes.append(UInt8(ascii: "{"))
        written.append(false)
        try body(&self)
        written.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes the member `name` with a string, or nothing for `nil`.
    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// Writes the member `name` with a number; a number JSON cannot hold (infinite, NaN) throws.
    mutating func member(_ name: String, _ value: Double?) throws(EncodingError) {
        guard let value else { return }
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(name) is not a finite number"))
        }
        key(name)
        bytes += value.rounded() == value && abs(value) < 1e15 ? Array(String(Int64(value)).utf8) : Array(value.description.utf8)
    }

    /// Writes the member `name` with an array of strings.
    mutating func member(_ name: String, _ values: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes the member `name` with an object whose members `body` writes.
    mutating func member(_ name: String, _ body: (inout JSONWriter) throws(EncodingError) -> Void) throws(EncodingError) {
        key(name)
        try object(body)
    }

    private mutating func key(_ name: String) {
        if written[written.count - 1] { bytes.append(UInt8(ascii: ",")) }
        written[written.count - 1] = true
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0..<0x20:
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
