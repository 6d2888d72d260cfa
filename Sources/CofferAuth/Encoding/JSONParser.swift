/// A strict RFC 8259 reader of JSON text into ``JSONValue``, for replies from the network.
///
/// It accepts exactly the grammar of RFC 8259 §2–7 in UTF-8 (§8.1), with these choices where
/// the RFC leaves one: a leading UTF-8 byte order mark is ignored (§8.1 allows it); a trailing
/// comma in an array or object is refused (Foundation's `JSONDecoder` takes it); an object
/// that names a member twice is refused (§4 says names SHOULD be unique, and two
/// `access_token`s must not be read one way here and another way elsewhere); a number too large
/// for a `Double` is refused; nesting deeper than ``maximumDepth`` (128) is refused. Anything else that is
/// not JSON (invalid UTF-8, a lone surrogate escape, a control character in a string, trailing
/// bytes) is refused too: the result is then `nil`.
///
/// It replaces `JSONDecoder` with `Codable`, which tried each kind of value in turn and built a
/// thrown error for every kind that did not fit: 40 µs for a token reply (docs/performance.md).
struct JSONParser {
    /// The deepest nesting of arrays and objects read: far beyond any reply, and shallow enough
    /// that the recursion fits the stack of any thread.
    static let maximumDepth = 128

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The value `text` holds, or `nil` when it is not exactly one JSON value.
    static func parse(_ text: UnsafeRawBufferPointer) -> JSONValue? {
        var parser = JSONParser(text)
        if text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF { parser.index = 3 }
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.index == text.count ? value : nil
    }

    private mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return depth < Self.maximumDepth ? object(depth: depth + 1) : nil
        case UInt8(ascii: "["): return depth < Self.maximumDepth ? array(depth: depth + 1) : nil
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number().map(JSONValue.number)
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = string() else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")), let member = value(depth: depth), members.updateValue(member, forKey: name) == nil else { return nil }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? .object(members) : nil
    }

    private mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? .array(elements) : nil
    }

    /// A string from its opening quote: the bytes between the quotes with escapes worked out,
    /// which must be valid UTF-8 with no control character.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            guard bytes[index] >= 0x20 else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(validating: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    unescaped.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            case 0..<0x20: return nil
            default: unescaped.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\uXXXX` escape (the `\u` read), with a surrogate pair as one scalar.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let first = hexQuad() else { return nil }
        switch first {
        case 0xD800...0xDBFF:
            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let second = hexQuad(), (0xDC00...0xDFFF).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        case 0xDC00...0xDFFF: return nil
        default: return Unicode.Scalar(first)
        }
    }

    private mutating func hexQuad() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number by RFC 8259 §6's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> Double? {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            // A leading zero stands alone.
        } else {
            guard digits() > 0 else { return nil }
        }
        if take(UInt8(ascii: ".")) {
            guard digits() > 0 else { return nil }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() > 0 else { return nil }
        }
        guard let number = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
              number.isFinite
        else { return nil }
        return number
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
