import Crypto
import Foundation

/// RFC 7636's S256 method, from the server's side.
enum PKCEVerifier {
    /// The characters of a verifier or challenge: ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Whether `value` has the form of a verifier (§4.1): 43 to 128 unreserved characters.
    static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy(unreserved.contains)
    }

    /// Whether `challenge` has the form of an S256 challenge: base64url of 32 bytes.
    static func isWellFormedChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && LenientBase64.decode(challenge)?.count == 32
    }

    /// Whether `BASE64URL(SHA256(verifier)) == challenge` (§4.6).
    static func matches(verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        return Secrets.equal(UnpaddedBase64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))), challenge)
    }
}
