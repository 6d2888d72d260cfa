import CofferTestSupport
import Foundation
import XCTest

/// A real terminal for a test: a detached tmux session on a private server (its own socket,
/// no configuration file), whose screen the test reads (`capture-pane`) and whose keys it
/// types (`send-keys`). What runs in it has a terminal of its own, as in a person's session.
final class TmuxTerminal {
    private let socket: URL
    private let session = "coffer"

    /// Starts `script` (a `/bin/sh` script, written to a file in `folder`) in a new session
    /// `width` columns wide and `height` lines high.
    init(folder: TemporaryFolder, script: String, width: Int = 100, height: Int = 30) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            throw MissingPrerequisite.error("tmux is not installed (scripts/bootstrap.sh test installs it)")
        }
        let name = UUID().uuidString
        socket = folder.file("tmux-\(name).sock")
        let file = folder.file("terminal-\(name).sh")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let started = try tmux(["new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)", "/bin/sh '\(file.path)'"])
        XCTAssertEqual(started.status, 0, started.stderrText)
    }

    deinit { close() }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> ChildProcess.Output {
        try ChildProcess.run("/usr/bin/tmux", ["-S", socket.path, "-f", "/dev/null"] + arguments, environment: ["TMUX": nil], timeout: .seconds(20))
    }

    /// What the screen shows now, as text (colours and underlines dropped).
    func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", session]).stdoutText
    }

    /// The terminal's device (`/dev/pts/N`).
    func device() throws -> String {
        try tmux(["display-message", "-p", "-t", session, "#{pane_tty}"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Types `text` as it is.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", session, "-l", text])
    }

    /// Presses keys by tmux's names (`Enter`, `Tab`, `Escape`).
    func press(_ keys: String...) throws {
        try tmux(["send-keys", "-t", session] + keys)
    }

    /// Waits until the screen shows all of `texts`; the screen then, or a failure with the
    /// screen as it was at the end.
    @discardableResult
    func waitForScreen(
        showing texts: String..., timeout: Duration = .seconds(20), file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var shown = try screen()
        while !texts.allSatisfy(shown.contains), ContinuousClock.now < deadline {
            usleep(50_000)
            shown = try screen()
        }
        XCTAssertTrue(texts.allSatisfy(shown.contains), "the screen never showed \(texts):\n\(shown)", file: file, line: line)
        return shown
    }

    /// Ends the session and its server (and what runs in it).
    func close() {
        _ = try? tmux(["kill-server"])
    }
}
