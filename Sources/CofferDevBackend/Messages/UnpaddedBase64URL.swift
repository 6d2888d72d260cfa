import Foundation

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2), as the backend writes tokens, codes,
/// JWK numbers, key thumbprints, `at_hash` and PKCE challenges: Foundation's base64 with the
/// URL alphabet's two letters swapped in and the `=` padding dropped.
enum UnpaddedBase64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return text.replacingOccurrences(of: "=", with: "")
    }
}
