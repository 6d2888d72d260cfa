/// Names and messages made safe to print on a terminal, one item per line.
///
/// Item names, paths and server text can hold any character. Printed as they are, a newline
/// or a tab would forge another line or column, and an escape sequence would move the cursor
/// or change colours. The text output of every command escapes them visibly and unambiguously;
/// `--json` output keeps the exact text, escaped as JSON does.
package enum TerminalText {
    /// `text` with `\` as `\\`; newline, tab and carriage return as `\n`, `\t` and `\r`; other C0
    /// controls and DEL as `\x1b` and the like; C1 controls, line and paragraph separators and
    /// the Unicode bidirectional controls (which reorder what a terminal shows) as `\u{202e}`.
    package static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00...0x1F, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
            case 0x80...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{" + hex(scalar.value, digits: 4) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
