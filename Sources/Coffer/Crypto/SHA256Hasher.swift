import CSodium

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
}
