/// An OAuth scope (RFC 6749 §3.3): space-separated elements, in any order. In MobileFirst an
/// element is usually a security check's name; Mobile Client Access tokens have the empty scope.
struct TokenScope: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The elements, sorted, without repeats.
    let elements: [String]

    init(_ text: String?) {
        elements = Array(Set((text ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))).sorted()
    }

    /// The scope in its wire form: the elements joined by spaces.
    var text: String { elements.joined(separator: " ") }

    var description: String { text.isEmpty ? "(empty scope)" : text }

    /// Whether a token of this scope also serves `other`: it has every element of `other`.
    func covers(_ other: TokenScope) -> Bool {
        Set(elements).isSuperset(of: other.elements)
    }

    init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
