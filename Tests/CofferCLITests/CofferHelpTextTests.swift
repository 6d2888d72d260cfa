import CofferTestSupport
import Foundation
import XCTest

/// `coffer --help` opens with a short overview that a terminal shows whole: at most 12 lines,
/// none broken in the middle of a sentence; the longer prose is the manual's alone.
final class CofferHelpTextTests: CLITestCase {
    /// The overview: the lines from `OVERVIEW:` to the first blank line after the abstract's
    /// paragraph and the overview's own, before the exit statuses and the usage.
    private func overview(_ help: String) -> [String] {
        let lines = help.components(separatedBy: "\n")
        let end = lines.firstIndex { $0.hasPrefix("EXIT STATUS") || $0.hasPrefix("USAGE:") } ?? lines.count
        return lines[..<end].filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// At most 12 lines, each one whole sentence (it ends with `.` or `:`) or more: never
    /// wrapped by the terminal, and no line starts in the middle of one.
    func testTheOverviewIsShortAndNeverBreaksASentence() throws {
        let help = try coffer(["--help"])
        XCTAssertEqual(help.status, 0, help.stderrText)
        let lines = overview(help.stdoutText)
        XCTAssertTrue(lines.first?.hasPrefix("OVERVIEW: ") ?? false, help.stdoutText)
        XCTAssertLessThanOrEqual(lines.count, 12, lines.joined(separator: "\n"))
        XCTAssertGreaterThan(lines.count, 3, "the overview says how to start: \(lines)")
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespaces)
            XCTAssertTrue(text.hasSuffix(".") || text.hasSuffix(":"), "a sentence goes on past the line: \(line)")
            XCTAssertFalse(text.first?.isLowercase ?? true, "a line starts in the middle of a sentence: \(line)")
        }
        XCTAssertTrue(help.stdoutText.contains("EXIT STATUS"), "the exit statuses follow the overview")
    }

    /// The manual page keeps the long text: generate-manual reads `--experimental-dump-help`,
    /// whose discussion has the overview and then the details `--help` leaves out.
    func testTheManualKeepsTheDetailsThatHelpLeavesOut() throws {
        let help = try coffer(["--help"]).stdoutText
        let dump = try XCTUnwrap(try JSONSerialization.jsonObject(with: try coffer(["--experimental-dump-help"]).stdout) as? [String: Any])
        let discussion = try XCTUnwrap((dump["command"] as? [String: Any])?["discussion"] as? String)
        for detail in ["$CREDENTIALS_DIRECTORY (--unlock credential", "$COFFER_TPM2_DEVICE names the TPM2 device", "no-echo prompt on the terminal"] {
            XCTAssertTrue(discussion.contains(detail), "the manual says: \(detail)")
            XCTAssertFalse(overview(help).joined().contains(detail), "--help's overview leaves out: \(detail)")
        }
        XCTAssertTrue(discussion.hasPrefix(overview(help).dropFirst().first?.trimmingCharacters(in: .whitespaces) ?? "?"), discussion)
        XCTAssertTrue(discussion.contains("EXIT STATUS"), "the manual lists the exit statuses too")
    }
}
