/// Where git's credential request ends: at its first blank line, `\n` or `\r\n`
/// (git-credential(1), "INPUT/OUTPUT FORMAT"). The thin git-credential-coffer reads up to it;
/// the full helper's reader, in and out of the agent, stops at it.
package final class GitRequestEnd {
    private var lineStart = 0
    private var scanned = 0

    /// The most the thin git-credential-coffer reads: one byte past the most the full helper
    /// accepts (1 MiB), so that a request cut there is refused by it.
    package static let thinReadLimit = (1 << 20) + 1

    package init() {}

    /// Whether `line`, its newline included, is the blank line that ends a request.
    package static func isBlankLine(_ line: some Collection<UInt8>) -> Bool {
        line.elementsEqual([UInt8(ascii: "\n")]) || line.elementsEqual([UInt8(ascii: "\r"), UInt8(ascii: "\n")])
    }

    /// Whether `bytes` (the same bytes as before, and more) hold the blank line; each byte is
    /// scanned once however often it is asked.
    package func isRead(in bytes: [UInt8]) -> Bool {
        while scanned < bytes.count {
            let index = scanned
            scanned += 1
            guard bytes[index] == UInt8(ascii: "\n") else { continue }
            if Self.isBlankLine(bytes[lineStart...index]) { return true }
            lineStart = index + 1
        }
        return false
    }
}
