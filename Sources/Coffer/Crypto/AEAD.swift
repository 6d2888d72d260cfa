import CSodium

/// XChaCha20-Poly1305-IETF authenticated encryption (`crypto_aead_xchacha20poly1305_ietf`).
///
/// A sealed box is `nonce (24) || ciphertext || tag (16)`. Nonces are random: 192 bits
/// make collisions negligible, so callers never manage them.
enum AEAD {
    static let keyLength = 32
    static let nonceLength = 24
    static let tagLength = 16
    static let overhead = nonceLength + tagLength

    /// Encrypts `plaintext` under `key`, authenticating `associatedData` too.
    static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength, "AEAD key must be 32 bytes")
        Sodium.ensureInitialized()
        let sealedLength = plaintext.count + overhead
        return [UInt8](unsafeUninitializedCapacity: sealedLength) { out, initialized in
            let nonce = out.baseAddress!
            randombytes_buf(nonce, nonceLength)
            var cipherLength: UInt64 = 0
            withNonNullBase(plaintext) { message in
                key.withUnsafeBytes { keyBytes in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        nonce + nonceLength, &cipherLength,
                        message.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        associatedData, UInt64(associatedData.count),
                        nil, nonce, keyBytes.uint8Base)
                }
            }
            initialized = nonceLength + Int(cipherLength)
        }
    }

    static func seal(_ plaintext: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        plaintext.withUnsafeBytes { seal($0, key: key, associatedData: associatedData) }
    }

    /// Encrypts secret bytes, such as a wrapped key.
    static func seal(_ plaintext: SecureBytes, key: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        plaintext.withUnsafeBytes { seal($0, key: key, associatedData: associatedData) }
    }

    /// Decrypts and authenticates a sealed box. Returns `nil` when it is too short,
    /// was made with another key or associated data, or was modified.
    static func open(_ sealed: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) -> [UInt8]? {
        guard sealed.count >= overhead else { return nil }
        let plaintextLength = sealed.count - overhead
        var authentic = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: Swift.max(plaintextLength, 1)) { out, initialized in
            authentic = decrypt(sealed, into: out.baseAddress!, key: key, associatedData: associatedData)
            initialized = authentic ? plaintextLength : 0
        }
        return authentic ? plaintext : nil
    }

    static func open(_ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> [UInt8]? {
        sealed.withUnsafeBytes { open($0, key: key, associatedData: associatedData) }
    }

    /// Decrypts a sealed box straight into guarded memory, for keys.
    static func openSecret(_ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8]) -> SecureBytes? {
        guard sealed.count >= overhead else { return nil }
        struct Forged: Error {}
        return sealed.withUnsafeBytes { sealedBytes in
            try? SecureBytes(count: sealed.count - overhead) { (out: UnsafeMutableRawBufferPointer) throws(Forged) in
                // SecureBytes always hands out a non-null base, even for zero bytes.
                guard decrypt(sealedBytes, into: out.baseAddress!, key: key, associatedData: associatedData) else {
                    throw Forged()
                }
            }
        }
    }

    private static func decrypt(
        _ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawPointer, key: SecureBytes, associatedData: [UInt8]
    ) -> Bool {
        precondition(key.count == keyLength, "AEAD key must be 32 bytes")
        Sodium.ensureInitialized()
        let nonce = sealed.uint8Base
        var plaintextLength: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                out.assumingMemoryBound(to: UInt8.self), &plaintextLength, nil,
                nonce + nonceLength, UInt64(sealed.count - nonceLength),
                associatedData, UInt64(associatedData.count),
                nonce, keyBytes.uint8Base)
        }
        return status == 0
    }
}

/// libsodium accepts an empty message but wants a valid pointer for it.
private func withNonNullBase<R>(_ buffer: UnsafeRawBufferPointer, _ body: (UnsafeRawPointer) -> R) -> R {
    if let base = buffer.baseAddress { return body(base) }
    var empty: UInt8 = 0
    return withUnsafePointer(to: &empty) { body(UnsafeRawPointer($0)) }
}

extension UnsafeRawBufferPointer {
    /// The base address as bytes. Only for buffers known to be non-empty or guarded (SecureBytes).
    var uint8Base: UnsafePointer<UInt8> { baseAddress!.assumingMemoryBound(to: UInt8.self) }
}
