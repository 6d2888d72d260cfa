import CLinux
import Coffer
import Glibc

/// Reads of a process's files under `/proc/PID`, each bounded; the parsers take bytes, so
/// tests give them fixtures.
enum ProcFiles {
    /// The first `limit` bytes of the file at `path`; `nil`, with errno set, when it cannot be
    /// opened or read. With `regularOnly` (for a file a process chooses), a symbolic link as the
    /// last component, or anything but a regular file, is refused (EINVAL) without being opened.
    static func read(_ path: String, limit: Int, regularOnly: Bool = false) -> [UInt8]? {
        let descriptor = regularOnly ? OpenDatabaseFiles.openRegular(path, followingLinks: false) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // Most of these files are a few hundred bytes: read in pages, not into a buffer of `limit`.
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { (chunk) -> [UInt8]? in
            var bytes: [UInt8] = []
            while bytes.count < limit {
                let got = Glibc.read(descriptor, chunk.baseAddress!, min(chunk.count, limit - bytes.count))
                if got < 0, errno == EINTR { continue }
                guard got >= 0 else { return nil }
                if got == 0 { break }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<got]))
            }
            return bytes
        }
    }

    /// A path's bytes as the C string Glibc's calls take (a path need not be UTF-8, and a
    /// Swift string would change bytes that are not).
    static func cPath(_ bytes: some Collection<UInt8>) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }

    /// The target of the symbolic link at `path` (for `/proc/PID/exe`, the executable's path as
    /// the kernel names it); `nil`, with errno set, when it cannot be read.
    static func link(_ path: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 64)
        let length = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count) }
        guard length >= 0 else { return nil }
        return Array(buffer.prefix(length))
    }

    /// The process's start time, field 22 of `/proc/PID/stat`: clock ticks after boot. Field 2
    /// (the command name, in parentheses) may hold spaces and parentheses of its own, so the
    /// fields are counted from the last `)`.
    static func startTime(stat: [UInt8]) -> UInt64? {
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = stat[(close + 1)...].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        // After the command name come fields 3 (the state) onwards: field 22 is the 20th.
        guard fields.count >= 20 else { return nil }
        return number(fields[19])
    }

    /// The effective user id, the second value of `/proc/PID/status`'s `Uid:` line.
    static func effectiveUID(status: [UInt8]) -> uid_t? {
        for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: "Uid:".utf8) {
            let values = line.dropFirst(4).split(whereSeparator: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") })
            guard values.count >= 2, let uid = number(values[1]), let value = uid_t(exactly: uid) else { return nil }
            return value
        }
        return nil
    }

    /// The arguments in `/proc/PID/cmdline`: NUL-terminated, the first being argv[0].
    static func arguments(cmdline: [UInt8]) -> [[UInt8]] {
        var arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        if arguments.last?.isEmpty == true { arguments.removeLast() }
        return arguments
    }

    private static func number(_ digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard (0x30...0x39).contains(digit) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
