import FoundationEssentials

/// Unicode NFC, applied to names and passphrases before they are hashed.
///
/// Swift compares strings by canonical equivalence, so "é" typed precomposed or as
/// "e" + combining accent is one name to the caller; NFC makes it one byte string too.
/// The standard library's NFC (`_nfcCodeUnits`, what `String` comparison is built on) rather
/// than Foundation's `precomposedStringWithCanonicalMapping`: Foundation's needs ICU, whose
/// loading alone cost every `coffer` command run by the full program about 10 ms.
/// `NormalizationTests` checks the two agree on every scalar and on mixtures.
enum Normalization {
    static func nfc(_ text: String) -> String {
        isASCII(text) ? text : String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// Whether `text` is ASCII, which NFC leaves as it is: on the string's own UTF-8 bytes when
    /// it has them contiguously (every native string), which the read path of every item needs.
    private static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } } ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    static func nfcBytes(_ text: String) -> [UInt8] {
        Array(nfc(text).utf8)
    }
}
