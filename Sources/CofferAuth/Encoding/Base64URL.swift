import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE, PKCE and OAuth use it.
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        var padded = encodePadded(bytes)
        while padded.hasSuffix("=") { padded.removeLast() }
        return padded
    }

    /// Base64url with its `=` padding kept, as the MobileFirst and Mobile Client Access Android
    /// SDKs encode the segments of their signed messages.
    static func encodePadded(_ bytes: some DataProtocol) -> String {
        let base64 = Data(bytes).base64EncodedData()
        return String(decoding: base64.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }, as: UTF8.self)
    }

    /// The bytes, or `nil` when `text` is not base64url (padding is accepted).
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: Data(base64))
    }

    /// `count` random bytes from the system's CSPRNG, encoded: for state, nonce and PKCE values.
    static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
