import Foundation

/// Base64 as the vendors' clients write it, decoded by the backend's own code: base64url with
/// `=` padding (the Android SDKs), standard base64 with padding (the MobileFirst web SDK's
/// `btoa`), or base64url without padding (RFC 7515). Anything else is refused.
enum LenientBase64 {
    static func decode(_ text: some StringProtocol) -> Data? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "-": standard.append("+")
            case "_": standard.append("/")
            case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=": standard.unicodeScalars.append(character)
            default: return nil
            }
        }
        let unpadded = standard.drop { $0 != "=" }.allSatisfy { $0 == "=" } ? standard.replacingOccurrences(of: "=", with: "") : nil
        guard let unpadded, unpadded.count % 4 != 1 else { return nil }
        return Data(base64Encoded: unpadded + String(repeating: "=", count: (4 - unpadded.count % 4) % 4))
    }
}
