import Foundation

/// Server-supplied text that ends up in errors and on terminals: security-check names and
/// failure reasons, checked or cleaned so that a server cannot forge extra lines.
package enum ChallengeText {
    /// The longest security-check or realm name accepted.
    package static let maxNameLength = 128
    /// The longest reason shown from a failure payload.
    package static let maxReasonLength = 200

    /// Whether `name` can name a security check or realm: 1 to 128 visible ASCII characters,
    /// none of them a quote or a backslash.
    package static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maxNameLength else { return false }
        return name.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// The human-readable reason in a failure or challenge payload (`failure`, `reason` or
    /// `errorMsg`), on one line and at most 200 characters; `nil` when there is none.
    package static func reason(in payload: JSONValue) -> String? {
        for key in ["failure", "reason", "errorMsg"] {
            if let text = payload[key]?.stringValue.map(oneLine), !text.isEmpty { return text }
        }
        return nil
    }

    /// `text` with control characters replaced by spaces, trimmed to 200 characters.
    package static func oneLine(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : $0
        }))
        let trimmed = cleaned.trimmingCharacters(in: .whitespaces)
        return trimmed.count > maxReasonLength ? String(trimmed.prefix(maxReasonLength)) + "…" : trimmed
    }
}
