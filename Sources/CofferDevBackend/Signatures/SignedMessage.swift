import CryptoExtras
import Foundation

/// A signed message from a MobileFirst or Mobile Client Access client, read and checked by the
/// backend's own code: a JWS (RFC 7515) whose header names RS256 and may carry the signer's
/// public key, as a JWK (MobileFirst's `jwk`: `kty`, `n`, `e`) or as MCA's `jpk` (`alg`, `mod`, `exp`).
struct SignedMessage {
    let header: [String: JSON]
    let payload: JSON
    /// The first two segments as sent: what the signature covers.
    let signingInput: Data
    let signature: Data

    /// Reads a compact JWS, `header.payload.signature`.
    init?(compact: String) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        self.init(header: String(parts[0]), payload: String(parts[1]), signature: String(parts[2]))
    }

    /// Reads the three segments of a JWS (MobileFirst's `signedRegistrationData`).
    init?(header headerSegment: String, payload payloadSegment: String, signature signatureSegment: String) {
        guard let headerBytes = LenientBase64.decode(headerSegment), let header = JSON(parsing: headerBytes)?.objectValue,
              let payloadBytes = LenientBase64.decode(payloadSegment), let payload = JSON(parsing: payloadBytes),
              let signature = LenientBase64.decode(signatureSegment), !signature.isEmpty
        else { return nil }
        self.header = header
        self.payload = payload
        self.signingInput = Data("\(headerSegment).\(payloadSegment)".utf8)
        self.signature = signature
    }

    /// Whether the header names RS256 and `key` made the signature (RSASSA-PKCS1-v1_5, SHA-256).
    func isSigned(by key: _RSA.Signing.PublicKey) -> Bool {
        guard header["alg"]?.stringValue == "RS256" else { return false }
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signingInput, padding: .insecurePKCS1v1_5)
    }

    /// The public key the header carries, as MobileFirst's `jwk` or MCA's `jpk`; `nil` when it
    /// carries none, or one that is not an RSA key of 2048 bits or more.
    var headerKey: _RSA.Signing.PublicKey? {
        if let jwk = header["jwk"] {
            guard jwk["kty"]?.stringValue == "RSA", let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue else { return nil }
            return RSANumbers.publicKey(modulus: n, exponent: e, signed: false)
        }
        if let jpk = header["jpk"] {
            guard jpk["alg"]?.stringValue == "RSA", let mod = jpk["mod"]?.stringValue, let exp = jpk["exp"]?.stringValue else { return nil }
            return RSANumbers.publicKey(modulus: mod, exponent: exp, signed: true)
        }
        return nil
    }
}
