/// The grammar of RFC 8259 (§2–7), checked without building values: what Go's `encoding/json`
/// scanner checks before docker's helpers read anything. Foundation's `JSONDecoder` checks a
/// number or a trailing comma only where it decodes one, so a member the helper ignores could
/// hold `01`, `1.`, `-` or `[1,]` and pass.
///
/// It checks structure only: the bytes inside a string (UTF-8, what an escape decodes to) are
/// left to the decoder that reads the string. It keeps its own stack, so no nesting makes it
/// recurse.
enum JSONSyntax {
    private enum Container { case object, array }

    /// Whether `bytes` are exactly one JSON value, with white space around it allowed.
    static func isOneValue(_ bytes: ArraySlice<UInt8>) -> Bool {
        var scanner = Scanner(bytes: bytes)
        return scanner.scanOneValue()
    }

    private struct Scanner {
        let bytes: ArraySlice<UInt8>
        var index: Int
        var open: [Container] = []

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        mutating func scanOneValue() -> Bool {
            var expectingValue = true
            while true {
                skipSpace()
                if expectingValue {
                    guard let opened = scanValueOrOpening() else { return false }
                    expectingValue = opened
                    continue
                }
                guard let container = open.last else { return index == bytes.endIndex }
                if take(container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    open.removeLast()
                } else if take(UInt8(ascii: ",")) {
                    if container == .object, !scanMemberName() { return false }
                    expectingValue = true
                } else {
                    return false
                }
            }
        }

        /// A whole value, or the opening of an object or array with its first member's name:
        /// whether a value is now expected (a container was opened), or nil when the bytes are
        /// not JSON. An empty object or array is a whole value.
        private mutating func scanValueOrOpening() -> Bool? {
            guard index < bytes.endIndex else { return nil }
            let whole: Bool
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let container = bytes[index] == UInt8(ascii: "{") ? Container.object : .array
                index += 1
                skipSpace()
                if take(container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return false }
                open.append(container)
                return container == .array || scanMemberName() ? true : nil
            case UInt8(ascii: "\""): whole = scanString()
            case UInt8(ascii: "t"): whole = scanWord("true")
            case UInt8(ascii: "f"): whole = scanWord("false")
            case UInt8(ascii: "n"): whole = scanWord("null")
            default: whole = scanNumber()
            }
            return whole ? false : nil
        }

        /// A member's name and its colon.
        private mutating func scanMemberName() -> Bool {
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\""), scanString() else { return false }
            skipSpace()
            return take(UInt8(ascii: ":"))
        }

        /// A string: no control character unescaped, and only the escapes of §7.
        private mutating func scanString() -> Bool {
            index += 1
            while index < bytes.endIndex {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case 0x00..<0x20: return false
                case UInt8(ascii: "\\"):
                    guard index < bytes.endIndex else { return false }
                    let escaped = bytes[index]
                    index += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard index < bytes.endIndex, bytes[index].isHexDigit else { return false }
                            index += 1
                        }
                    } else if !Array(#""\/bfnrt"#.utf8).contains(escaped) {
                        return false
                    }
                default: continue
                }
            }
            return false
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func scanNumber() -> Bool {
            _ = take(UInt8(ascii: "-"))
            if take(UInt8(ascii: "0")) {
                // A leading zero stands alone.
            } else if scanDigits() == 0 {
                return false
            }
            if take(UInt8(ascii: ".")), scanDigits() == 0 { return false }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
                if scanDigits() == 0 { return false }
            }
            return true
        }

        private mutating func scanDigits() -> Int {
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        private mutating func scanWord(_ word: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes[index...].starts(with: expected) else { return false }
            index += expected.count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
