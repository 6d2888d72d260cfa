import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the S256 method: the authorization request
/// carries a hash of a random verifier, and only the holder of the verifier can exchange the code.
struct PKCE: Sendable {
    /// 32 random bytes, base64url: 43 characters of the unreserved set (§4.1).
    let verifier: String

    init(verifier: String = Base64URL.random(bytes: 32)) {
        self.verifier = verifier
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))` (§4.2).
    var challenge: String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    static let method = "S256"
}
