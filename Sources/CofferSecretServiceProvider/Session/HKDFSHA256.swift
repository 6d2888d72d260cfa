import CSodium
import Coffer
import CofferBase

/// HKDF with SHA-256 (RFC 5869) over libsodium's HMAC-SHA256, for the one use the Secret
/// Service's Diffie-Hellman session makes of it: no salt, no info, at most 32 bytes out.
/// libsodium 1.0.18 (Debian 12's) has HMAC-SHA256 but not HKDF; this is RFC 5869's two steps,
/// checked against its test case 3 (no salt, no info) and against python-secretstorage's.
enum HKDFSHA256 {
    /// `HKDF-Expand(HKDF-Extract(salt = 32 zero bytes, input), info = "", length)`, length ≤ 32.
    static func derive(from input: SecureBytes, length: Int) -> SecureBytes {
        precondition(length <= 32, "one HMAC block")
        let hashLength = Int(crypto_auth_hmacsha256_BYTES)
        let salt = [UInt8](repeating: 0, count: hashLength)
        // Extract: PRK = HMAC-SHA256(key = salt, message = input).
        let pseudorandomKey = SecureBytes(count: hashLength) { out in
            var state = crypto_auth_hmacsha256_state()
            defer { SecretMemory.zero(bytesOf: &state) }
            crypto_auth_hmacsha256_init(&state, salt, salt.count)
            input.withUnsafeBytes { bytes in
                _ = crypto_auth_hmacsha256_update(&state, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
            }
            crypto_auth_hmacsha256_final(&state, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        // Expand, one block: T(1) = HMAC-SHA256(key = PRK, message = info || 0x01).
        return SecureBytes(count: length) { out in
            var block = [UInt8](repeating: 0, count: hashLength)
            defer { SecretMemory.zero(&block) }
            var state = crypto_auth_hmacsha256_state()
            defer { SecretMemory.zero(bytesOf: &state) }
            pseudorandomKey.withUnsafeBytes { key in
                _ = crypto_auth_hmacsha256_init(&state, key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
            }
            var counter: UInt8 = 1
            crypto_auth_hmacsha256_update(&state, &counter, 1)
            crypto_auth_hmacsha256_final(&state, &block)
            block.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
    }
}
