import CLinux
import CofferAgentWire
import Glibc
import GitCredentialHelper

/// What a credential helper reads from its caller.
extension FuzzTarget {
    /// git's credential request (`GitCredentialReader`), read the two ways a `get` can reach it:
    /// by the full git-credential-coffer from stdin, and by the agent from the bytes the thin
    /// helper read until `GitRequestEnd` saw the blank line. Both must refuse the same requests
    /// and read the same credential from the others, however the thin helper's reads were cut.
    static let gitRequest = FuzzTarget(name: "git-request") { bytes in
        let full = GitRequestOutcome { try GitCredentialReader.read(from: requestFile(holding: bytes)) }
        for chunk in [1, 7, 16_384] {
            let thin = thinlyRead(bytes, chunk: chunk)
            let agent = GitRequestOutcome { try GitCredentialReader.read(thin) }
            precondition(agent == full, "the agent and the full helper read a request differently (thin reads of \(chunk) bytes)")
        }
    }

    /// What `ThinInput.read` keeps of `bytes` arriving `chunk` bytes at a time: up to the read
    /// that holds the blank line, or the thin git helper's limit.
    private static func thinlyRead(_ bytes: [UInt8], chunk: Int) -> [UInt8] {
        let limit = GitRequestEnd.thinReadLimit
        let end = GitRequestEnd()
        var read: [UInt8] = []
        while read.count < limit, read.count < bytes.count, !end.isRead(in: read) {
            read += bytes[read.count..<min(bytes.count, read.count + chunk, limit)]
        }
        return read
    }

    /// One in-memory file, rewritten for each input, as the full helper's stdin.
    private static let requestFileDescriptor = coffer_memfd_cloexec("coffer-fuzz-git-request")

    private static func requestFile(holding bytes: [UInt8]) -> Int32 {
        let file = requestFileDescriptor
        let written = bytes.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
        precondition(file >= 0 && ftruncate(file, off_t(bytes.count)) == 0 && written == bytes.count && lseek(file, 0, SEEK_SET) == 0, "cannot hold the request in a file")
        return file
    }
}

/// A request refused, or the credential read from it.
private enum GitRequestOutcome: Equatable {
    case refused
    case read(GitCredential)

    init(_ reading: () throws -> GitCredential) {
        do { self = .read(try reading()) } catch { self = .refused }
    }
}
