import CGcrypt
import Coffer
import CofferBase

/// AES-128 in CBC mode with PKCS#7 padding (libgcrypt, in secure memory), the cipher of the
/// Secret Service's Diffie-Hellman session.
package enum AES128CBC {
    package static let blockLength = 16

    /// Encrypts `plaintext` under `key` (16 bytes) and `iv` (16 bytes).
    package static func encrypt(_ plaintext: some Collection<UInt8>, key: SecureBytes, iv: [UInt8]) -> [UInt8] {
        let padding = blockLength - plaintext.count % blockLength
        // One buffer, encrypted in place: no copy of the plaintext is left behind in freed memory.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(plaintext.count + padding)
        buffer.append(contentsOf: plaintext)
        buffer.append(contentsOf: repeatElement(UInt8(padding), count: padding))
        let status = buffer.withUnsafeMutableBytes { bytes in
            withCipher(key: key, iv: iv) { cipher in gcry_cipher_encrypt(cipher, bytes.baseAddress, bytes.count, nil, 0) }
        }
        precondition(status == 0, "AES-CBC encryption failed on whole blocks")
        return buffer
    }

    /// Decrypts and unpads `ciphertext` into secure memory; `nil` when it is not whole blocks
    /// or its padding is not PKCS#7's.
    package static func decrypt(_ ciphertext: UnsafeRawBufferPointer, key: SecureBytes, iv: [UInt8]) -> SecureBytes? {
        guard !ciphertext.isEmpty, ciphertext.count % blockLength == 0, iv.count == blockLength else { return nil }
        let padded = SecureBytes(count: ciphertext.count) { out in
            out.copyMemory(from: ciphertext)
            let status = withCipher(key: key, iv: iv) { cipher in gcry_cipher_decrypt(cipher, out.baseAddress, out.count, nil, 0) }
            if status != 0 { SecretMemory.zero(out) }
        }
        let padding = padded.withUnsafeBytes { Int($0[$0.count - 1]) }
        let valid = padded.withUnsafeBytes { bytes in
            (1...blockLength).contains(padding) && bytes.suffix(padding).allSatisfy { Int($0) == padding }
        }
        guard valid else { return nil }
        return padded.withUnsafeBytes { bytes in SecureBytes(copying: bytes.prefix(bytes.count - padding)) }
    }

    private static func withCipher(key: SecureBytes, iv: [UInt8], _ body: (gcry_cipher_hd_t) -> gcry_error_t) -> gcry_error_t {
        GcryptLibrary.ensureInitialized()
        var cipher: gcry_cipher_hd_t?
        guard gcry_cipher_open(&cipher, Int32(GCRY_CIPHER_AES.rawValue), Int32(GCRY_CIPHER_MODE_CBC.rawValue), UInt32(GCRY_CIPHER_SECURE.rawValue)) == 0,
              let cipher else { return 1 }
        defer { gcry_cipher_close(cipher) }
        let keyed = key.withUnsafeBytes { gcry_cipher_setkey(cipher, $0.baseAddress, $0.count) }
        guard keyed == 0, gcry_cipher_setiv(cipher, iv, iv.count) == 0 else { return 1 }
        return body(cipher)
    }
}
