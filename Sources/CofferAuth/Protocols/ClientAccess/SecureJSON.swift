import Foundation

/// Mobile Client Access's "secure JSON": a JSON body wrapped as `/*-secure-\n{…}*/`, so that a
/// browser cannot run it as a script (the SDKs' `SECURE_PATTERN_START`, `SECURE_PATTERN_END`,
/// `Utils.extractSecureJson`).
package enum SecureJSON {
    package static let prefix = Data("/*-secure-\n".utf8)
    package static let suffix = Data("*/".utf8)

    /// The JSON inside `body`, or `nil` when `body` is not wrapped (trailing whitespace allowed).
    package static func unwrap(_ body: Data) -> Data? {
        var end = body.endIndex
        while end > body.startIndex, [0x20, 0x09, 0x0A, 0x0D].contains(body[end - 1]) { end -= 1 }
        let trimmed = body[body.startIndex..<end]
        guard trimmed.count >= prefix.count + suffix.count, trimmed.starts(with: prefix), trimmed.suffix(suffix.count).elementsEqual(suffix) else {
            return nil
        }
        return Data(trimmed.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
