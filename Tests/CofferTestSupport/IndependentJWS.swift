import Crypto
import CryptoExtras
import Foundation

/// Signed messages for the tests, made and checked apart from CofferAuth's and the dev
/// backend's code: RS256 (RSASSA-PKCS1-v1_5, SHA-256) straight from swift-crypto, and the JWS
/// compact form (RFC 7515) done here. The tests sign what a vendor SDK would send, and verify
/// what Coffer sends, with it.
public enum IndependentJWS {
    /// A compact JWS's parts.
    public struct Parts: Sendable {
        public let header: Data
        public let payload: Data
        /// The first two segments as sent.
        public let signingInput: Data
        public let signature: Data
    }

    /// How the segments are written.
    public enum Encoding: Sendable {
        /// Base64url with `=` padding (the vendors' Android SDKs).
        case paddedURL
        /// Base64url without padding (RFC 7515).
        case unpaddedURL
        /// Standard base64 with padding (the MobileFirst web SDK's `btoa`).
        case standard
    }

    public static func encode(_ data: Data, _ encoding: Encoding) -> String {
        let standard = data.base64EncodedString()
        switch encoding {
        case .standard: return standard
        case .paddedURL: return standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        case .unpaddedURL:
            return standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
    }

    /// The bytes of a segment in any of the three encodings.
    public static func decode(_ segment: some StringProtocol) -> Data? {
        var text = String(segment).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text = text.replacingOccurrences(of: "=", with: "")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }

    /// `payload` signed under `header` (both JSON text) with `key`.
    public static func sign(header: String, payload: String, with key: _RSA.Signing.PrivateKey, encoding: Encoding = .paddedURL) throws -> String {
        let input = encode(Data(header.utf8), encoding) + "." + encode(Data(payload.utf8), encoding)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + encode(signature.rawRepresentation, encoding)
    }

    /// `payload` signed under `header` with ES256 (RFC 7518 §3.4: ECDSA P-256 with SHA-256, the
    /// signature as the 64 bytes of R and S), unpadded base64url.
    public static func signES256(header: String, payload: String, with key: P256.Signing.PrivateKey) throws -> String {
        let input = encode(Data(header.utf8), .unpaddedURL) + "." + encode(Data(payload.utf8), .unpaddedURL)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + encode(signature.rawRepresentation, .unpaddedURL)
    }

    /// The parts of a compact JWS, or `nil` when it is not one.
    public static func parts(_ compact: String) -> Parts? {
        let segments = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let header = decode(segments[0]), let payload = decode(segments[1]), let signature = decode(segments[2]) else {
            return nil
        }
        return Parts(header: header, payload: payload, signingInput: Data("\(segments[0]).\(segments[1])".utf8), signature: signature)
    }

    /// Whether `key` made the signature of `compact`.
    public static func verify(_ compact: String, with key: _RSA.Signing.PublicKey) -> Bool {
        guard let parts = parts(compact) else { return false }
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: parts.signature), for: parts.signingInput, padding: .insecurePKCS1v1_5)
    }

    /// Whether the OpenSSL command-line tool (`openssl dgst -sha256 -verify`), a second verifier
    /// that shares no code with swift-crypto, accepts the signature of `compact` by `key`.
    /// `nil` when `openssl` is not installed.
    public static func verifyWithOpenSSL(_ compact: String, with key: _RSA.Signing.PublicKey) throws -> Bool? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
        guard let parts = parts(compact) else { return false }
        let folder = TemporaryFolder()
        let keyFile = folder.file("key.pem"), input = folder.file("input"), signature = folder.file("signature")
        try Data(key.pemRepresentation.utf8).write(to: keyFile)
        try parts.signingInput.write(to: input)
        try parts.signature.write(to: signature)
        let output = try ChildProcess.run("/usr/bin/openssl", ["dgst", "-sha256", "-verify", keyFile.path, "-signature", signature.path, input.path])
        return output.status == 0 && output.stdoutText.contains("Verified OK")
    }

    /// The RSA public key of big-endian `n` and `e` (leading zero bytes allowed).
    public static func publicKey(n: Data, e: Data) throws -> _RSA.Signing.PublicKey {
        try _RSA.Signing.PublicKey(n: Data(n.drop { $0 == 0 }), e: Data(e.drop { $0 == 0 }))
    }

    /// A key's modulus and exponent, unsigned big-endian.
    public static func numbers(of key: _RSA.Signing.PublicKey) throws -> (n: Data, e: Data) {
        let primitives = try key.getKeyPrimitives()
        return (primitives.modulus, primitives.publicExponent)
    }

    /// `bytes` as Java's `BigInteger.toByteArray()` writes a positive number: a zero byte first when the top bit is set.
    public static func javaSigned(_ bytes: Data) -> Data {
        let trimmed = Data(bytes.drop { $0 == 0 })
        return (trimmed.first ?? 0) & 0x80 == 0 ? trimmed : Data([0]) + trimmed
    }
}
