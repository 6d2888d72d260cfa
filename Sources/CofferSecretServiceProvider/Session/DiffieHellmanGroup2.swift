import CGcrypt
import Coffer

/// Diffie-Hellman over the 1024-bit MODP group of RFC 2409 (section 6.2, the Second Oakley
/// Group, generator 2), as the Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session
/// uses it. The arithmetic is libgcrypt's (`gcry_mpi_powm`); the private exponent and the
/// shared value live in libgcrypt's secure memory, and the shared value leaves it only into
/// ``SecureBytes``.
package final class DiffieHellmanGroup2 {
    /// The group's prime, big-endian (RFC 2409, 6.2).
    static let prime: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34,
        0xC4, 0xC6, 0x62, 0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74,
        0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13, 0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD,
        0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30, 0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37,
        0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76, 0x62, 0x5E, 0x7E, 0xC6,
        0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7, 0xED,
        0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6,
        0x49, 0x28, 0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]
    static let generator: UInt = 2
    /// The length of the prime, and of every value exchanged or derived.
    static let length = 128

    private let primeNumber: gcry_mpi_t
    private let privateExponent: gcry_mpi_t
    /// Our public value, `g^x mod p`, big-endian, left-padded to 128 bytes.
    package let publicValue: [UInt8]

    /// A fresh key pair: a 1024-bit private exponent from libgcrypt's strong random generator.
    package init() {
        GcryptLibrary.ensureInitialized()
        primeNumber = Self.number(Self.prime)
        privateExponent = gcry_mpi_snew(1024)
        gcry_mpi_randomize(privateExponent, 1024, GCRY_STRONG_RANDOM)
        let base = gcry_mpi_set_ui(nil, Self.generator)!
        defer { gcry_mpi_release(base) }
        let result = gcry_mpi_new(1024)!
        defer { gcry_mpi_release(result) }
        gcry_mpi_powm(result, base, privateExponent, primeNumber)
        publicValue = Self.paddedBytes(of: result)
    }

    deinit {
        gcry_mpi_release(privateExponent)  // secure memory: zeroed on release
        gcry_mpi_release(primeNumber)
    }

    /// The shared value `peer^x mod p`, big-endian, left-padded with zeros to 128 bytes; `nil`
    /// when the peer's value is not one (empty, longer than the prime, or outside 2 … p-2,
    /// which would make the shared value predictable).
    package func sharedValue(withPeer peer: [UInt8]) -> SecureBytes? {
        let significant = peer.drop { $0 == 0 }
        guard !peer.isEmpty, significant.count <= Self.length else { return nil }
        let peerNumber = Self.number(Array(significant))
        defer { gcry_mpi_release(peerNumber) }
        let limit = gcry_mpi_new(1024)!
        defer { gcry_mpi_release(limit) }
        gcry_mpi_sub_ui(limit, primeNumber, 1)
        guard gcry_mpi_cmp_ui(peerNumber, 1) > 0, gcry_mpi_cmp(peerNumber, limit) < 0 else { return nil }
        let shared = gcry_mpi_snew(1024)!
        defer { gcry_mpi_release(shared) }
        gcry_mpi_powm(shared, peerNumber, privateExponent, primeNumber)
        let bytes = (Int(gcry_mpi_get_nbits(shared)) + 7) / 8
        return SecureBytes(count: Self.length) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            var written = 0
            _ = gcry_mpi_print(GCRYMPI_FMT_USG, buffer.baseAddress! + (Self.length - bytes), bytes, &written, shared)
        }
    }

    /// A number from big-endian bytes (not secret: the prime, a peer's public value).
    private static func number(_ bytes: [UInt8]) -> gcry_mpi_t {
        var result: gcry_mpi_t?
        _ = bytes.withUnsafeBytes { gcry_mpi_scan(&result, GCRYMPI_FMT_USG, $0.baseAddress, $0.count, nil) }
        return result ?? gcry_mpi_new(0)
    }

    /// A public value as 128 big-endian bytes.
    private static func paddedBytes(of number: gcry_mpi_t) -> [UInt8] {
        let bytes = (Int(gcry_mpi_get_nbits(number)) + 7) / 8
        var out = [UInt8](repeating: 0, count: length)
        out.withUnsafeMutableBytes { buffer in
            var written = 0
            _ = gcry_mpi_print(GCRYMPI_FMT_USG, buffer.baseAddress! + (length - bytes), bytes, &written, number)
        }
        return out
    }
}

/// libgcrypt, initialised once per process.
enum GcryptLibrary {
    private static let initialized: Bool = coffer_gcrypt_initialize() != 0

    static func ensureInitialized() {
        precondition(initialized, "libgcrypt refused to initialise (version mismatch)")
    }
}
