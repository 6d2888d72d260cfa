import CSodium

/// Passphrase stretching with Argon2id v1.3 (`crypto_pwhash`, `crypto_pwhash_ALG_ARGON2ID13`).
enum Argon2id {
    static let saltLength = 16
    /// The algorithm identifier stored in passphrase slots.
    static let algorithmName = "argon2id13"

    /// Derives a 32-byte key, or returns `nil` when the system cannot supply the memory.
    static func deriveKey(from passphrase: SecureBytes, salt: [UInt8], cost: PassphraseCost) -> SecureBytes? {
        precondition(salt.count == saltLength, "Argon2id salt must be 16 bytes")
        precondition(cost.isAccepted, "Argon2id cost out of range")
        Sodium.ensureInitialized()
        struct OutOfMemory: Error {}
        return try? SecureBytes(count: 32) { (out: UnsafeMutableRawBufferPointer) throws(OutOfMemory) in
            let status = passphrase.withUnsafeBytes { password in
                crypto_pwhash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                    password.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(password.count),
                    salt, cost.operations, Int(cost.memoryBytes),
                    crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else { throw OutOfMemory() }
        }
    }
}
