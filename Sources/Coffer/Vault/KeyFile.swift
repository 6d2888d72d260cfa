import FoundationEssentials
import Glibc

/// Key files: 32 random bytes in a file of mode 0600, used as a vault key slot.
public enum KeyFile {
    /// The size of every key file.
    public static let length = 32

    /// Creates a new key file of 32 random bytes with mode 0600. Fails if the file exists.
    ///
    /// The key is written and synced under a temporary name, then linked into place, so a
    /// process killed half-way never leaves a short key file at `url`.
    public static func generate(at url: URL) throws(CofferError) {
        let path = url.path
        try FileSecurity.checkFreeForNewFile(path, existing: .invalidArgument(reason: "a file already exists at \(path)"))
        let temporary = CreationLeftovers.temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .storageUnavailable(reason: "cannot create a file beside \(path): \(describeErrno())")
        }
        defer { unlink(temporary) }
        let key = SecureBytes.random(count: length)
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = written == length && fsync(descriptor) == 0
        close(descriptor)
        guard synced else { throw .storageUnavailable(reason: "cannot write \(path): \(describeErrno())") }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw .invalidArgument(reason: "a file already exists at \(path)") }
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        FileSecurity.syncFolder(at: FileSecurity.parentFolder(of: path))
    }

    /// Reads a key file, refusing one that others can read or that is not exactly 32 bytes.
    ///
    /// It is opened without blocking and checked through its descriptor, so a FIFO, a device
    /// or a symbolic link is refused at once (``CofferError/insecurePermissions(path:reason:)``)
    /// instead of hanging or being followed.
    /// `missing` is thrown when there is no file (by default, an invalid argument).
    static func read(at url: URL, missing: CofferError? = nil) throws(CofferError) -> SecureBytes {
        let path = url.path
        let descriptor = try FileSecurity.openPrivateFile(at: path, missing: missing ?? .invalidArgument(reason: "no key file at \(path)"))
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size == length else {
            throw .invalidArgument(reason: "a key file holds exactly \(length) bytes")
        }
        struct ShortRead: Error {}
        do {
            return try SecureBytes(count: length) { (buffer: UnsafeMutableRawBufferPointer) throws(ShortRead) in
                guard pread(descriptor, buffer.baseAddress, length, 0) == length else { throw ShortRead() }
            }
        } catch {
            throw .storageUnavailable(reason: "cannot read \(path)")
        }
    }
}
