import Foundation

/// `application/x-www-form-urlencoded`, as OAuth 2.0 uses it (RFC 6749 Appendix B).
package enum FormEncoding {
    /// Whether each byte is left as it is: ALPHA / DIGIT / "-" / "." / "_" / "*".
    private static let unreserved: [Bool] = (0...255).map { byte in
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*".utf8.contains(UInt8(byte))
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes one name or value: spaces become "+", everything else outside the unreserved set "%XX".
    package static func escape(_ text: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved[Int(byte)] {
                result.append(byte)
            } else if byte == UInt8(ascii: " ") {
                result.append(UInt8(ascii: "+"))
            } else {
                result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Encodes pairs in order: `a=1&b=2`.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Decodes a form body. `nil` when it is malformed (bad percent escapes or not UTF-8).
    package static func decode(_ body: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for part in body.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(pieces[0]), let value = unescape(pieces.count > 1 ? pieces[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Decodes one name or value.
    package static func unescape(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
