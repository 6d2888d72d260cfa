import Foundation

/// A JSON value as the backend reads it from requests and writes it in replies. Foundation's
/// `JSONDecoder` and `JSONEncoder` do the parsing and the writing; this type only holds the value.
enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The value of JSON text; `nil` when the text is not JSON.
    init?(parsing data: Data) {
        guard let value = try? JSONDecoder().decode(JSON.self, from: data) else { return nil }
        self = value
    }

    /// Compact JSON text with sorted keys and unescaped slashes.
    var text: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    /// Member `name` of an object; `nil` for anything else.
    subscript(name: String) -> JSON? { objectValue?[name] }

    var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    var numberValue: Double? { if case .number(let number) = self { number } else { nil } }
    var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    var objectValue: [String: JSON]? { if case .object(let members) = self { members } else { nil } }
    var isNull: Bool { self == .null }
}

extension JSON: Codable {
    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
            return
        }
        self = try (try? single.decode(Bool.self)).map(JSON.bool)
            ?? (try? single.decode(Double.self)).map(JSON.number)
            ?? (try? single.decode(String.self)).map(JSON.string)
            ?? (try? single.decode([JSON].self)).map(JSON.array)
            ?? .object(single.decode([String: JSON].self))
    }

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        guard let value = encodable else { return try single.encodeNil() }
        try single.encode(value)
    }

    /// The Swift value that encodes as this; `nil` for `null`.
    private var encodable: (any Encodable)? {
        switch self {
        case .null: nil
        case .bool(let flag): flag
        case .number(let number): number
        case .string(let text): text
        case .array(let elements): elements
        case .object(let members): members
        }
    }
}

/// Replies written as Swift literals: `["error": "invalid_grant", "interval": 5, "keys": [...]]`.
extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    init(stringLiteral text: String) { self = .string(text) }
    init(integerLiteral number: Int) { self = .number(Double(number)) }
    init(booleanLiteral flag: Bool) { self = .bool(flag) }
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    init(dictionaryLiteral members: (String, JSON)...) { self = .object(Dictionary(members) { _, last in last }) }
}
