/// Random, URL-safe, opaque strings: tokens, codes, client ids and secrets.
enum RandomToken {
    /// `bytes` bytes from the system's CSPRNG, base64url without padding.
    static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return UnpaddedBase64URL.encode((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
