import Crypto
import Foundation

/// SHA-256 of a string's UTF-8 bytes, as bytes.
enum SHA256Digest {
    static func of(_ text: String) -> Data {
        Data(SHA256.hash(data: Data(text.utf8)))
    }
}
