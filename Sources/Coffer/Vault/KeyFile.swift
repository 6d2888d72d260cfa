import Foundation
import Glibc

/// Key files: 32 random bytes in a file of mode 0600, used as a vault key slot.
public enum KeyFile {
    /// The size of every key file.
    public static let length = 32

    /// Creates a new key file of 32 random bytes with mode 0600. Fails if the file exists.
    public static func generate(at url: URL) throws(CofferError) {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw .invalidArgument(reason: "a file already exists at \(path)") }
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        defer { close(descriptor) }
        let key = SecureBytes.random(count: length)
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == length, fsync(descriptor) == 0 else {
            unlink(path)
            throw .storageUnavailable(reason: "cannot write \(path): \(describeErrno())")
        }
    }

    /// Reads a key file, refusing one that others can read or that is not exactly 32 bytes.
    static func read(at url: URL) throws(CofferError) -> SecureBytes {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .invalidArgument(reason: "no key file at \(path)") }
            throw .storageUnavailable(reason: "cannot open \(path): \(describeErrno())")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
        }
        try FileSecurity.checkPrivate(info, path: path)
        guard info.st_size == length else {
            throw .invalidArgument(reason: "a key file holds exactly \(length) bytes")
        }
        struct ShortRead: Error {}
        do {
            return try SecureBytes(count: length) { (buffer: UnsafeMutableRawBufferPointer) throws(ShortRead) in
                guard Glibc.read(descriptor, buffer.baseAddress, length) == length else { throw ShortRead() }
            }
        } catch {
            throw .storageUnavailable(reason: "cannot read \(path)")
        }
    }
}
