import CLinux
import CofferBase
import Glibc

/// What a thin program reads on stdin before it asks the agent (a credential helper's request,
/// the secret of a `coffer set`), and gives back to its full program when it hands the
/// invocation on: the full program then reads the same bytes on descriptor 0, and what the thin
/// one never read is never read by it either (both stop where the request ends).
package struct ThinInput {
    /// The bytes read; zeroed by ``zero()``.
    package private(set) var bytes: [UInt8] = []

    /// Reads stdin until `isComplete` says the bytes hold a whole request, the input ends, or
    /// `limit` bytes are read (a request the full program refuses for its size then). `nil` when
    /// the first read fails: the full program then reads stdin itself and reports it. A read
    /// that fails later ends the process with status 74 and why (nothing was answered).
    package static func read(limit: Int, until isComplete: ([UInt8]) -> Bool = { _ in false }) -> ThinInput? {
        var input = ThinInput()
        // Room for all of it at once: a buffer that grew would leave copies of the request behind, unzeroed.
        input.bytes.reserveCapacity(limit)
        var chunk = [UInt8](repeating: 0, count: 16_384)
        defer { SecretMemory.zero(&chunk) }
        while input.bytes.count < limit, !isComplete(input.bytes) {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress!, min($0.count, limit - input.bytes.count)) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                guard input.bytes.isEmpty else {
                    input.zero()
                    ThinProgram.fail("cannot read the request: \(String(cString: strerror(errno)))", status: ThinProgram.outputFailedStatus)
                }
                return nil
            }
            if count == 0 { break }
            input.bytes += chunk[..<count]
        }
        return input
    }

    /// Makes descriptor 0 a new file holding ``bytes`` (a `memfd`), for the full program; ends the
    /// process with status 69 and why when it cannot, since the input is gone.
    package mutating func giveBack() {
        let file = coffer_memfd_cloexec("coffer-helper-input")
        guard file >= 0, ThinProgram.writeAll(bytes, to: file), lseek(file, 0, SEEK_SET) == 0, dup2(file, STDIN_FILENO) == STDIN_FILENO else {
            ThinProgram.fail("cannot keep the input for the full program: \(String(cString: strerror(errno)))", status: ThinAgent.unavailableStatus)
        }
        close(file)
        zero()
    }

    /// Zeroes and forgets the bytes read.
    package mutating func zero() {
        SecretMemory.zero(&bytes)
        bytes = []
    }
}
