/// Assuan's lines and their escaping (libassuan's manual, "Client requests"): a line is at most
/// 1,000 bytes before its line feed, and a command's argument escapes `%`, CR and LF as `%25`,
/// `%0D` and `%0A`.
package enum AssuanText {
    /// The longest line, line feed not counted (libassuan's `ASSUAN_LINELENGTH`, 1,002, counts
    /// an optional CR and the LF).
    package static let maxLineLength = 1000

    /// The line (line feed included) that sends `verb` with `argument`, percent-escaped: `%`, and
    /// every C0 control and DEL, as `%` and two hex digits. An argument too long for a line is
    /// cut at a character's end and ends with `…`.
    package static func command(_ verb: String, _ argument: String? = nil) -> [UInt8] {
        var line = Array(verb.utf8)
        if let argument {
            line.append(UInt8(ascii: " "))
            let pieces = argument.unicodeScalars.map(escaped)
            if line.count + pieces.reduce(0, { $0 + $1.count }) <= maxLineLength {
                line += pieces.joined()
            } else {
                let ellipsis = Array("…".utf8)
                for piece in pieces {
                    guard line.count + piece.count + ellipsis.count <= maxLineLength else { break }
                    line += piece
                }
                line += ellipsis
            }
        }
        return line + [UInt8(ascii: "\n")]
    }

    /// One character's bytes in an argument.
    private static func escaped(_ scalar: Unicode.Scalar) -> [UInt8] {
        switch scalar.value {
        case 0x00...0x1F, 0x25, 0x7F: [UInt8(ascii: "%")] + Array(hexDigits(UInt8(scalar.value)))
        default: Array(String(scalar).utf8)
        }
    }

    private static func hexDigits(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    /// The value of a hex digit (either case), or `nil`.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
