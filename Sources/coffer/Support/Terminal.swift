import Foundation
import Glibc

/// Terminal and standard-stream helpers.
enum Terminal {
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("coffer: \(message)\n".utf8))
    }

    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads a line from /dev/tty with echo off. `nil` when there is no terminal.
    static func readHidden(prompt: String) -> String? {
        readLine(prompt: prompt, echo: false)
    }

    /// Reads a line from /dev/tty, echoed or not. `nil` when there is no terminal.
    static func readLine(prompt: String, echo: Bool) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        // Echo goes off (and typeahead is dropped) before the prompt shows, so nothing typed
        // after the prompt can be echoed.
        if !echo { _ = tcsetattr(tty, TCSAFLUSH, &silent) }
        _ = write(tty, prompt, prompt.utf8.count)
        defer {
            if !echo {
                _ = tcsetattr(tty, TCSAFLUSH, &saved)
                _ = write(tty, "\n", 1)
            }
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        defer { _ = line.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// Writes `text` to /dev/tty; `false` when there is no terminal.
    @discardableResult
    static func writeToTerminal(_ text: String) -> Bool {
        let tty = open("/dev/tty", O_WRONLY | O_CLOEXEC)
        guard tty >= 0 else { return false }
        defer { close(tty) }
        return write(tty, text, text.utf8.count) == text.utf8.count
    }

    /// Reads all of a file descriptor, up to `limit` bytes; `nil` if there were more.
    static func readAll(fd: Int32, limit: Int) throws -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(message: "cannot read file descriptor \(fd): \(String(cString: strerror(errno)))", exitStatus: 70)
            }
            if count == 0 { return data }
            data.append(buffer, count: count)
            if data.count > limit { return nil }
        }
    }
}
