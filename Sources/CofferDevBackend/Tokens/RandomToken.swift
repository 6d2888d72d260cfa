import Foundation

/// Random, URL-safe, opaque strings: tokens, codes, client ids and secrets.
enum RandomToken {
    /// `bytes` random bytes, base64url without padding.
    static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
