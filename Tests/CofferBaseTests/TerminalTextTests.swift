import CofferBase
import XCTest

/// ``TerminalText/escaped(_:)``, which every name shown to a person goes through (the CLI's
/// text output, the prompter's `COFFER_PROMPT`): line breaks, tabs, C0 and C1 controls, DEL,
/// line and paragraph separators and bidirectional controls show as visible escapes, and a
/// backslash is doubled, so an escaped text reads back unambiguously; everything else stays.
final class TerminalTextTests: XCTestCase {
    func testControlsAndBidiControlsShowAsEscapes() {
        XCTAssertEqual(TerminalText.escaped("a\nb\tc\rd"), "a\\nb\\tc\\rd")
        XCTAssertEqual(TerminalText.escaped("\u{0}\u{1B}[31m\u{7F}"), "\\x00\\x1b[31m\\x7f")
        XCTAssertEqual(TerminalText.escaped("\u{85}\u{9B}\u{2028}\u{2029}"), "\\u{0085}\\u{009b}\\u{2028}\\u{2029}")
        XCTAssertEqual(
            TerminalText.escaped("\u{61C}\u{200E}\u{200F}\u{202A}\u{202E}\u{2066}\u{2069}"),
            "\\u{061c}\\u{200e}\\u{200f}\\u{202a}\\u{202e}\\u{2066}\\u{2069}")
        XCTAssertEqual(TerminalText.escaped("back\\slash\\n"), "back\\\\slash\\\\n", "a literal \\n is not a line break")
        XCTAssertEqual(TerminalText.escaped("Café /usr/bin/python3 ✓"), "Café /usr/bin/python3 ✓")
    }
}
