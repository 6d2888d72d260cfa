/// Lower-case hexadecimal, as vault ids, lock names and object paths are written.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lower-case hex digits, two a byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes that lower-case hex digits stand for; `nil` for an odd count or any other character.
    package static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
