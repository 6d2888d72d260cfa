import Foundation
import Hummingbird

/// `application/x-www-form-urlencoded` text (RFC 6749 Appendix B), as request bodies and
/// queries carry it and redirects send it back. Hummingbird's `URLEncodedFormDecoder` decodes
/// each `name=value`; splitting on `&` here keeps a repeated name, which a server must see
/// (RFC 6749 §3.1, §4.1.2.1) and which Hummingbird refuses in a whole form without the others.
enum URLForm {
    /// The pairs in order, repeats kept; `nil` when one does not decode (a bad `%` escape, or a
    /// bracketed name, which Hummingbird reads as nesting). Escaped bytes that are not UTF-8
    /// read as U+FFFD.
    static func pairs(_ text: String) -> [(name: String, value: String)]? {
        let decoder = URLEncodedFormDecoder()
        var pairs: [(name: String, value: String)] = []
        for part in text.split(separator: "&") {
            // Hummingbird skips a name without `=`; a form means a name with an empty value.
            let pair = part.contains("=") ? String(part) : part + "="
            guard let decoded = try? decoder.decode([String: String].self, from: pair) else { return nil }
            pairs += decoded.map { (name: $0.key, value: $0.value) }
        }
        return pairs
    }

    /// One form-encoded value on its own, decoded as a pair's value: the client id or secret
    /// inside HTTP Basic (RFC 6749 §2.3.1). `nil` when it does not decode or holds a bare `&`.
    static func value(_ text: String) -> String? {
        guard !text.contains("&"), let pairs = pairs("value=" + text), pairs.count == 1 else { return nil }
        return pairs[0].value
    }

    /// `pairs` in order, `a=1&b=2`, with every byte outside ALPHA / DIGIT / `-._~` percent-escaped
    /// (Foundation's `addingPercentEncoding`), so that neither a form nor a query reader can misread one.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escaped($0) + "=" + escaped($1) }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escaped(_ text: String) -> String {
        // Only a string with unpaired surrogates has no encoding, and a Swift string has none.
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
