import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// `coffer --help` lists every exit status of the table with its number and meaning, in order,
/// and `coffer request --help` and `coffer access --help` the ones their commands give.
final class ExitStatusHelpTests: CLITestCase {
    func testTheHelpListsEveryExitStatusWithItsNumber() throws {
        let help = try coffer(["--help"])
        XCTAssertEqual(help.status, 0, help.stderrText)
        let listed = Self.statuses(in: help.stdoutText)
        XCTAssertEqual(listed.map(\.number), ExitStatus.allCases.map(\.rawValue))
        for (status, entry) in zip(ExitStatus.allCases, listed) {
            XCTAssertEqual(entry.meaning, status.meaning, "\(status)")
        }
    }

    func testTheRequestHelpListsItsOwnStatuses() throws {
        let help = try coffer(["request", "--help"])
        XCTAssertEqual(help.status, 0, help.stderrText)
        let listed = Self.statuses(in: help.stdoutText).map(\.number)
        XCTAssertEqual(listed, [ExitStatus.ok, .loginNeeded, .httpError, .challengeFailed, .blocked, .challengeCancelled, .timedOut].map(\.rawValue))
    }

    /// `coffer access --help` lists the statuses its subcommands give.
    func testTheAccessHelpListsItsOwnStatuses() throws {
        let help = try coffer(["access", "--help"])
        XCTAssertEqual(help.status, 0, help.stderrText)
        XCTAssertEqual(
            Self.statuses(in: help.stdoutText).map(\.number),
            [ExitStatus.ok, .notFound, .locked, .integrityFailure, .usage, .noVault, .unavailable].map(\.rawValue))
    }

    /// The block under the `EXIT STATUS` line: a number starts an entry, a deeper indent
    /// continues its meaning, anything else ends the block.
    private static func statuses(in help: String) -> [(number: Int32, meaning: String)] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(of: ExitStatus.helpHeading) else { return [] }
        var entries: [(number: Int32, meaning: String)] = []
        for line in lines[(heading + 1)...] {
            let words = line.split(separator: " ", maxSplits: 1)
            if line.hasPrefix("  "), let first = words.first, let number = Int32(first), line.dropFirst(2).first != " " {
                entries.append((number, words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""))
            } else if line.hasPrefix("   "), !entries.isEmpty {
                entries[entries.count - 1].meaning += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                break
            }
        }
        return entries
    }
}
