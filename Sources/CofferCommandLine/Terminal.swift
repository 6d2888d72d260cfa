import CLinux
import Coffer
import CofferBase
import FoundationEssentials
import Glibc

/// The controlling terminal (/dev/tty) and one-line errors on stderr.
package enum Terminal {
    /// The name that starts every error line: `coffer`, or the credential helper's own name.
    /// An executable that is not `coffer` sets it first thing in `main`, before any thread starts.
    nonisolated(unsafe) package static var programName = "coffer"

    /// Writes `<program>: <message>` to stderr as one line: control characters are escaped.
    package static func printError(_ message: String) {
        StandardStreams.writeError("\(programName): \(TerminalText.escaped(message))\n")
    }

    package static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// The longest line read from the terminal.
    package static let maxLineBytes = 4096

    /// Reads a line from /dev/tty with echo off, into guarded memory; `nil` when there is no
    /// terminal. Echo goes off (and typeahead is dropped) before the prompt shows, and comes
    /// back whatever happens: also on SIGINT, SIGTERM, SIGHUP and SIGTSTP (Ctrl-C, Ctrl-Z).
    package static func readHidden(prompt: String) -> SecureBytes? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        guard coffer_hide_echo(tty) == 0 else {
            coffer_restore_echo()
            return nil
        }
        defer {
            coffer_restore_echo()
            _ = write(tty, "\n", 1)
        }
        _ = write(tty, prompt, prompt.utf8.count)
        return readLine(from: tty)
    }

    /// Reads a line from /dev/tty with echo on; `nil` when there is no terminal. For answers
    /// that are not secret, such as a user name.
    package static func readVisibleLine(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0, isatty(tty) == 1 else {
            if tty >= 0 { close(tty) }
            return nil
        }
        defer { close(tty) }
        _ = write(tty, prompt, prompt.utf8.count)
        return readLine(from: tty).flatMap { line in line.withUnsafeBytes { String(validating: $0, as: UTF8.self) } }
    }

    /// One line, without its newline (and a carriage return before it).
    private static func readLine(from tty: Int32) -> SecureBytes? {
        var length = 0
        let buffer = SecureBytes(count: maxLineBytes) { (line: UnsafeMutableRawBufferPointer) in
            var byte: UInt8 = 0
            while length < line.count {
                let count = read(tty, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1, byte != UInt8(ascii: "\n") else { break }
                line[length] = byte
                length += 1
            }
            byte = 0
        }
        return buffer.withUnsafeBytes { bytes in
            let line = bytes.prefix(length)
            return SecureBytes(copying: line.last == UInt8(ascii: "\r") ? line.dropLast() : line)
        }
    }

    /// Writes `text` to /dev/tty; `false` when there is no terminal.
    @discardableResult
    package static func writeToTerminal(_ text: String) -> Bool {
        let tty = open("/dev/tty", O_WRONLY | O_CLOEXEC)
        guard tty >= 0 else { return false }
        defer { close(tty) }
        return write(tty, text, text.utf8.count) == text.utf8.count
    }
}

extension SecureBytes {
    /// The bytes as text, when they are valid UTF-8: for secrets that leave as text anyway
    /// (a password or PIN sent to a server).
    package var utf8Text: String? {
        withUnsafeBytes { String(validating: $0, as: UTF8.self) }
    }
}
