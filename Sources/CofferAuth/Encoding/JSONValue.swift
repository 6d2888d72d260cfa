import Foundation

/// A JSON value, read in a typed way: token replies now, challenge payloads later.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // The commonest kinds first: each kind tried in vain throws, and a thrown decoding error
        // costs microseconds (JSONDecoder accepts a value as one kind only, so the order decides nothing else).
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON text strictly (RFC 8259, UTF-8; a name twice in one object is refused); `nil`
    /// when it is not one valid JSON value.
    public init?(parsing data: Data) {
        guard let value = data.withUnsafeBytes(JSONParser.parse) else { return nil }
        self = value
    }

    /// The member `key` of an object; `nil` for a missing member or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The string, if this is one.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The number as an `Int`, if this is a whole number that fits.
    public var intValue: Int? {
        guard let value = numberValue, value.rounded() == value, let int = Int(exactly: value) else { return nil }
        return int
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// Compact JSON text with sorted keys, every character outside printable ASCII escaped as
    /// `\uXXXX`, so that it also fits in an HTTP header (whose values may not hold DEL either).
    package var compactJSON: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return Data("null".utf8) }
        // The encoder escapes the other control characters itself.
        guard data.contains(where: { $0 >= 0x7F }) else { return data }
        var ascii = ""
        for unit in String(decoding: data, as: UTF8.self).utf16 {
            if unit < 0x7F { ascii.unicodeScalars.append(Unicode.Scalar(UInt8(unit))) } else { ascii += String(format: "\\u%04x", unit) }
        }
        return Data(ascii.utf8)
    }
}

/// JSON values from Swift literals: `["pin": "1234"]`, `["rememberMe": true]`, `["attempts": 3]`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// An object; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
