@testable import coffer_auth
import XCTest

/// What a challenge prompt shows of a server's text on the terminal.
final class TerminalChallengePromptTests: XCTestCase {
    /// A challenge message with Unicode bidirectional controls (U+202E, U+202C, U+2066, U+2069,
    /// which reorder what a terminal shows) is shown with them as visible escapes, on one line.
    func testBidiControlsAreShownAsVisibleEscapes() {
        let shown = TerminalChallengePrompt.shown("Enter PIN \u{202E}4321\u{202C} for \u{2066}bank\u{2069}\nnext")
        XCTAssertEqual(shown, #"Enter PIN \u{202e}4321\u{202c} for \u{2066}bank\u{2069} next"#)
    }
}
