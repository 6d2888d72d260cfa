import CofferAuth

/// Random, URL-safe, opaque strings: tokens, codes, client ids and secrets.
enum RandomToken {
    /// `bytes` random bytes, base64url without padding.
    static func make(bytes: Int) -> String {
        Base64URL.random(bytes: bytes)
    }
}
