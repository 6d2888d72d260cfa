import CofferBase
import Coffer
import FoundationEssentials
import Glibc

/// What the CLI reads from file descriptors named on its command line (`--passphrase-fd N` and
/// the like): read once, into guarded memory, before any vault is opened.
///
/// Reading first matters: once a vault is open, its file, -wal or -shm may sit on the very
/// descriptor number the user named but did not open (`3<&-`), and reading it would take the
/// file's bytes for a passphrase. So every named descriptor is read by ``prefetch(_:vault:)`` at
/// start-up, and a descriptor that is closed, or that is one of the vault's own files, is an
/// error (``ExitStatus/usage``).
package enum DescriptorInput {
    /// The most bytes read from one descriptor.
    package static let limit = 1 << 20

    private static let read = Guarded<[Int32: SecureBytes]>([:])

    /// Reads every descriptor in `descriptors` now, checking none is closed or one of the files
    /// of the vault at `vault`.
    package static func prefetch(_ descriptors: [Int32], vault: URL?) throws {
        let vaultFiles = vault.map { url in ["", "-wal", "-shm"].compactMap { identity(ofPath: url.path + $0) } } ?? []
        for fd in descriptors where self.read.withLock({ $0[fd] }) == nil {
            let bytes = try readChecked(fd, vaultFiles: vaultFiles)
            self.read.withLock { $0[fd] = bytes }
        }
    }

    /// All of descriptor `fd`, up to ``limit`` bytes, in guarded memory.
    package static func bytes(_ fd: Int32) throws -> SecureBytes {
        if let bytes = read.withLock({ $0[fd] }) { return bytes }
        let bytes = try readChecked(fd, vaultFiles: [])
        read.withLock { $0[fd] = bytes }
        return bytes
    }

    /// A secret from `fd`: one trailing newline dropped; empty is an error.
    package static func secret(_ fd: Int32, what: String) throws -> SecureBytes {
        let all = try bytes(fd)
        let secret = all.withUnsafeBytes { bytes in
            SecureBytes(copying: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...])
        }
        guard secret.count > 0 else { throw CLIError.usage("the \(what) on file descriptor \(fd) is empty") }
        return secret
    }

    /// A secret from `fd` as text, refused unless it is valid UTF-8.
    package static func text(_ fd: Int32, what: String) throws -> String {
        guard let text = try secret(fd, what: what).utf8Text else {
            throw CLIError.usage("the \(what) on file descriptor \(fd) is not valid UTF-8")
        }
        return text
    }

    private static func readChecked(_ fd: Int32, vaultFiles: [FileIdentity]) throws -> SecureBytes {
        var info = stat()
        guard fstat(fd, &info) == 0, !StandardStreams.closedAtStart.contains(fd) else {
            throw CLIError.usage(fd == 0 ? "standard input is closed" : "file descriptor \(fd) is not open")
        }
        if vaultFiles.contains(FileIdentity(info)) {
            throw CLIError.usage("file descriptor \(fd) is the vault's own file, not a secret")
        }
        guard let bytes = try readAll(fd, limit: limit) else {
            throw CLIError.usage("file descriptor \(fd) holds more than \(limit) bytes")
        }
        return bytes
    }

    /// Reads `fd` to its end into guarded memory; `nil` when it holds more than `limit` bytes.
    package static func readAll(_ fd: Int32, limit: Int) throws -> SecureBytes? {
        guard !StandardStreams.closedAtStart.contains(fd) else {
            throw CLIError.usage(fd == 0 ? "standard input is closed" : "file descriptor \(fd) is not open")
        }
        var length = 0
        var failure: Int32 = 0
        let buffer = SecureBytes(count: limit + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            while length < buffer.count {
                let count = Glibc.read(fd, buffer.baseAddress! + length, buffer.count - length)
                if count < 0, errno == EINTR { continue }
                if count < 0 { failure = errno }
                guard count > 0 else { return }
                length += count
            }
        }
        guard failure == 0 else {
            throw CLIError.usage("cannot read file descriptor \(fd): \(String(cString: strerror(failure)))")
        }
        guard length <= limit else { return nil }
        return buffer.withUnsafeBytes { SecureBytes(copying: $0.prefix(length)) }
    }

    /// A file, by device and inode.
    package struct FileIdentity: Equatable {
        let device: UInt
        let inode: UInt

        init(_ info: stat) {
            device = UInt(info.st_dev)
            inode = UInt(info.st_ino)
        }
    }

    private static func identity(ofPath path: String) -> FileIdentity? {
        var info = stat()
        return stat(path, &info) == 0 ? FileIdentity(info) : nil
    }
}

/// A command whose options name file descriptors to read; ``CommandLineTool/run(_:)`` reads
/// them all (``DescriptorInput/prefetch(_:vault:)``) before the command runs.
package protocol ReadsDescriptors {
    /// The root command's vault options (its `--passphrase-fd` and vault), when the command opens a vault.
    var vaultOptions: VaultOptions? { get }
    /// Descriptors this command reads besides `--passphrase-fd`.
    var ownDescriptors: [Int32] { get }
}

extension ReadsDescriptors {
    package var vaultOptions: VaultOptions? { nil }
    package var ownDescriptors: [Int32] { [] }

    /// Every descriptor the command line names for this command.
    package var namedDescriptors: [Int32] {
        [vaultOptions?.passphraseFD].compactMap { $0 } + ownDescriptors
    }
}
