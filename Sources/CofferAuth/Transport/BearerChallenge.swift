import Foundation

/// A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3): its auth-params, such as `realm`,
/// `scope` and `error`.
package struct BearerChallenge: Sendable, Hashable {
    /// The parameters by lower-cased name; quoted values unquoted.
    package let parameters: [String: String]

    /// Parses one header value; `nil` unless its scheme is Bearer.
    package init?(_ value: String) {
        let trimmed = value.drop { $0 == " " }
        guard trimmed.count >= 6, trimmed.prefix(6).lowercased() == "bearer",
              trimmed.count == 6 || trimmed.dropFirst(6).first == " "
        else { return nil }
        var parameters: [String: String] = [:]
        var rest = Substring(trimmed.dropFirst(6))
        while true {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { break }
                    else { value.append(character) }
                }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if !name.isEmpty, parameters[name] == nil { parameters[name] = value }
        }
        self.parameters = parameters
    }

    /// The Bearer challenges in a response's `WWW-Authenticate` headers.
    package static func all(in response: HTTPReply) -> [BearerChallenge] {
        response.headers.filter { $0.name.caseInsensitiveCompare(HeaderName.wwwAuthenticate) == .orderedSame }
            .compactMap { BearerChallenge($0.value) }
    }
}
