import Foundation

/// Unicode NFC, applied to names and passphrases before they are hashed.
///
/// Swift compares strings by canonical equivalence, so "é" typed precomposed or as
/// "e" + combining accent is one name to the caller; NFC makes it one byte string too.
enum Normalization {
    static func nfc(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    static func nfcBytes(_ text: String) -> [UInt8] {
        Array(nfc(text).utf8)
    }
}
