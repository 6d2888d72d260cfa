import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// An RS256 signing key of the provider: a 2048-bit RSA key, its RFC 7638 thumbprint as key
/// id, and its public half as a JWK.
struct SigningKey: Sendable {
    let privateKey: JWTKit.Insecure.RSA.PrivateKey
    let kid: String
    /// The public key as a JWK: `kty`, `use`, `alg`, `kid`, `n`, `e`.
    let jwk: [String: JSON]
    /// The public key's SPKI PEM, the secret of ``OpenIDFault/idTokenHS256WithPublicKey``.
    let publicKeyPEM: String

    /// Generates a new key.
    static func generate() throws -> SigningKey {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: backing)
        let primitives = try backing.publicKey.getKeyPrimitives()
        let n = UnpaddedBase64URL.encode(primitives.modulus), e = UnpaddedBase64URL.encode(primitives.publicExponent)
        // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
        let thumbprint = UnpaddedBase64URL.encode(Data(SHA256.hash(data: Data(#"{"e":"\#(e)","kty":"RSA","n":"\#(n)"}"#.utf8))))
        let jwk: [String: JSON] = [
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(thumbprint), "n": .string(n), "e": .string(e),
        ]
        return SigningKey(privateKey: privateKey, kid: thumbprint, jwk: jwk, publicKeyPEM: backing.publicKey.pemRepresentation)
    }

    /// `payload` signed with RS256, the header naming `kid` (by default this key's).
    func sign(_ payload: some JWTPayload, kid: String? = nil) async throws -> String {
        let kid = JWKIdentifier(string: kid ?? self.kid)
        let keys = await JWTKeyCollection().add(rsa: privateKey, digestAlgorithm: .sha256, kid: kid)
        return try await keys.sign(payload, kid: kid)
    }
}

/// The provider's signing key, generated on first use (so a backend that never serves OpenID
/// spends no time on it), and the stranger key that signs the bad-signature faults.
actor SigningKeys {
    private var key: SigningKey?

    /// The provider's key.
    func current() throws -> SigningKey {
        if let key { return key }
        let generated = try SigningKey.generate()
        key = generated
        return generated
    }

    /// A key no backend publishes, shared by every backend in the process.
    static let stranger = SigningKeys()
}
