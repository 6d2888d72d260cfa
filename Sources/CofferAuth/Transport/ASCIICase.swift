/// HTTP's case-insensitive text (header names, media types, auth schemes: RFC 9110, 5.1, 8.3.1
/// and 11.1): ASCII letters fold, every other byte compares as itself. Cheaper than Foundation's
/// Unicode comparisons, which every reply's headers went through.
package enum ASCIICase {
    /// `text` with ASCII letters in lower case.
    package static func lowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(lower), as: UTF8.self)
    }

    /// Whether `first` and `second` are equal, ASCII letters compared without case.
    package static func equal(_ first: some StringProtocol, _ second: some StringProtocol) -> Bool {
        first.utf8.count == second.utf8.count && zip(first.utf8, second.utf8).allSatisfy { lower($0) == lower($1) }
    }

    /// `text` without the spaces and tabs (HTTP's optional whitespace) at either end.
    package static func trimmingWhitespace(_ text: Substring) -> Substring {
        let isWhitespace = { (character: Character) in character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }), let last = text.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        return text[first...last]
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
