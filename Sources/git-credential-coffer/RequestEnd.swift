/// Where git's request ends: its first blank line (git-credential(1)). Looked for in the bytes
/// read so far, each byte scanned once however often it is asked.
final class RequestEnd {
    private var lineStart = 0
    private var scanned = 0

    /// Whether `bytes` (the same bytes as before, and more) hold a blank line.
    func isRead(in bytes: [UInt8]) -> Bool {
        while scanned < bytes.count {
            let index = scanned
            scanned += 1
            guard bytes[index] == UInt8(ascii: "\n") else { continue }
            if index == lineStart || (index == lineStart + 1 && bytes[lineStart] == UInt8(ascii: "\r")) { return true }
            lineStart = index + 1
        }
        return false
    }
}
