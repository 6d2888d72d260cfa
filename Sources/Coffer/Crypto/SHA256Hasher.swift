import CSodium
import Glibc

/// SHA-256 over a stream of bytes (libsodium's `crypto_hash_sha256`): what identifies a
/// program's executable and script files (``Program``).
package struct SHA256Hasher {
    private var state = crypto_hash_sha256_state()

    package init() {
        Sodium.ensureInitialized()
        crypto_hash_sha256_init(&state)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The digest of everything given to ``update(_:)``: 32 bytes.
    package mutating func finish() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(crypto_hash_sha256_BYTES)) { out, count in
            crypto_hash_sha256_final(&state, out.baseAddress!)
            count = Int(crypto_hash_sha256_BYTES)
        }
    }

    /// The digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// The digest of the regular file at `path` (a symbolic link is followed), read whole; `nil`
    /// when it is not a regular file, cannot be read, or is a vault this process has open
    /// (``FileSecurity/openRegularFile(at:followingLinks:)``).
    package static func digest(ofFileAt path: String) -> [UInt8]? {
        guard let descriptor = try? FileSecurity.openRegularFile(at: path, followingLinks: true) else { return nil }
        defer { close(descriptor) }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return hasher.finish()
    }
}
