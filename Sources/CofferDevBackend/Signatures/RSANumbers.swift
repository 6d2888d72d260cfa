import CryptoExtras
import Foundation

/// RSA public keys from the numbers a client sends, decoded by the backend's own code.
enum RSANumbers {
    /// The key of `modulus` and `exponent` (base64 of big-endian bytes, any of
    /// ``LenientBase64``'s forms). `signed`: the bytes are Java `BigInteger.toByteArray()` (MCA's
    /// `jpk`), so a first byte with its top bit set is a negative number and refused; otherwise
    /// (a JWK) they are unsigned. Leading zero bytes are allowed. Only keys of 2048 bits or more
    /// are accepted (swift-crypto's floor; the vendors' Android and iOS SDKs use 512).
    static func publicKey(modulus: String, exponent: String, signed: Bool) -> _RSA.Signing.PublicKey? {
        guard let n = LenientBase64.decode(modulus), let e = LenientBase64.decode(exponent), !n.isEmpty, !e.isEmpty else { return nil }
        if signed, n.first! & 0x80 != 0 || e.first! & 0x80 != 0 { return nil }
        let magnitudeN = Data(n.drop { $0 == 0 }), magnitudeE = Data(e.drop { $0 == 0 })
        guard !magnitudeN.isEmpty, !magnitudeE.isEmpty else { return nil }
        return try? _RSA.Signing.PublicKey(n: magnitudeN, e: magnitudeE)
    }

    /// Whether two keys are the same key.
    static func same(_ lhs: _RSA.Signing.PublicKey, _ rhs: _RSA.Signing.PublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }
}
