import CofferBase
import FoundationEssentials

/// The JSON of docker's credential helper protocol (docker/docker-credential-helpers,
/// credentials/credentials.go): `{"ServerURL", "Username", "Secret"}`. A `Username` of
/// `<token>` marks the secret as an identity token.
package struct DockerCredentials: Equatable {
    package var serverURL = ""
    package var username = ""
    package var secret = ""

    /// What `store` reads: the first JSON value on stdin, which must be an object (or `null`).
    /// Members are read as Go's decoder reads them into docker's struct: a key names a field in
    /// any case (Go's simple case folding), the last string of a field counts, `null` changes
    /// nothing, other keys are ignored; anything after the value is ignored. The value must be
    /// JSON throughout, ignored members included (``JSONSyntax``), as Go's scanner requires.
    package init(json bytes: [UInt8]) throws {
        guard let first = Self.firstValue(in: bytes) else { throw DockerHelperError.invalidJSON("unexpected end of input") }
        guard JSONSyntax.isOneValue(first) else { throw DockerHelperError.invalidJSON("malformed JSON") }
        let members: [(key: String, value: Field)]
        do {
            // JSONDecoder checks the whole value; the members are then read in order, so that the
            // last one of a field counts, as in Go's decoder.
            guard try JSONDecoder().decode([String: Field]?.self, from: Data(first)) != nil else { return }
            members = try Self.members(ofObject: first)
        } catch let DecodingError.typeMismatch(type, _) where type != Field.self {
            throw DockerHelperError.invalidJSON("the credentials are not a JSON object")
        } catch {
            throw DockerHelperError.invalidJSON("malformed JSON")
        }
        // Go sets a field from each of its members in turn: null leaves it as it was, and a
        // value that is not a string is an error whichever member it is.
        func field(_ name: String) throws -> String {
            var text = ""
            for member in members where Self.foldedEqual(member.key, name) {
                switch member.value {
                case .null: continue
                case .string(let value): text = value
                case .other: throw DockerHelperError.invalidJSON("\(name) is not a JSON string")
                }
            }
            return text
        }
        serverURL = try field("ServerURL")
        username = try field("Username")
        secret = try field("Secret")
    }

    /// A member's value as far as the fields need it.
    private enum Field: Decodable {
        case null
        case string(String)
        case other

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let text = try? value.decode(String.self) {
                self = .string(text)
            } else {
                self = .other
            }
        }
    }

    package init(serverURL: String, username: String, secret: String) {
        self.serverURL = serverURL
        self.username = username
        self.secret = secret
    }

    /// Checks that the credentials name a server and a user (the secret may be empty).
    func validate() throws {
        guard !serverURL.isEmpty else { throw DockerHelperError.missingServerURL }
        guard !username.isEmpty else { throw DockerHelperError.missingUsername }
    }

    /// What `get` prints: the object in docker's field order, then a newline.
    var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func string(_ text: String) -> String {
            (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        return Array("{\"ServerURL\":\(string(serverURL)),\"Username\":\(string(username)),\"Secret\":\(string(secret))}\n".utf8)
    }

    /// The server URL `get` and `erase` read: the input's lines joined, without surrounding
    /// white space (as the docker helpers read it).
    static func serverURL(from bytes: [UInt8]) throws -> String {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        guard let text = String(validating: lines.joined(), as: UTF8.self) else {
            throw DockerHelperError.invalidInput("the server URL is not valid UTF-8")
        }
        let url = String(text.trimmingWhitespace())
        guard !url.isEmpty else { throw DockerHelperError.missingServerURL }
        return url
    }

    /// The bytes of the first JSON value in `bytes` (after white space): an object or array up to
    /// its closing bracket, a string up to its closing quote, or a bare word or number.
    private static func firstValue(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let start = bytes.firstIndex(where: { !Self.isSpace($0) }), let end = valueEnd(in: bytes[...], from: start, wordEnds: [])
        else { return nil }
        return bytes[start..<end]
    }

    /// Whether `key` is the ASCII field name `name` under Go's simple case folding
    /// (`bytes.EqualFold`), where besides ASCII case U+017F is an s and U+212A a k.
    private static func foldedEqual(_ key: String, _ name: String) -> Bool {
        func folded(_ scalar: Unicode.Scalar) -> UInt32 {
            switch scalar.value {
            case 0x41...0x5A: scalar.value + 0x20
            case 0x17F: 0x73
            case 0x212A: 0x6B
            default: scalar.value
            }
        }
        return key.unicodeScalars.map(folded) == name.unicodeScalars.map(folded)
    }

    /// The members of `object`, a JSON object JSONDecoder has read without error, in order.
    private static func members(ofObject object: ArraySlice<UInt8>) throws -> [(key: String, value: Field)] {
        let decoder = JSONDecoder()
        var members: [(key: String, value: Field)] = []
        var index = object.startIndex + 1
        func skipSpace() { while index < object.endIndex, isSpace(object[index]) { index += 1 } }
        while true {
            skipSpace()
            guard index < object.endIndex, object[index] == UInt8(ascii: "\"") else { return members }
            guard let keyEnd = valueEnd(in: object, from: index, wordEnds: []) else { return members }
            let key = try decoder.decode(String.self, from: Data(object[index..<keyEnd]))
            index = keyEnd
            skipSpace()
            index += 1  // the colon
            skipSpace()
            guard let end = valueEnd(in: object, from: index, wordEnds: [UInt8(ascii: ","), UInt8(ascii: "}")]) else { return members }
            members.append((key, try decoder.decode(Field.self, from: Data(object[index..<end]))))
            index = end
            skipSpace()
            index += 1  // the comma or the closing brace
        }
    }

    /// Where the JSON value starting at `start` ends: a string after its closing quote, an object
    /// or array after its closing bracket, a bare word or number at white space or a byte of
    /// `wordEnds`. Nil when the bytes end inside a string or a bracket.
    private static func valueEnd(in bytes: ArraySlice<UInt8>, from start: Int, wordEnds: [UInt8]) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index + 1 }
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}") where depth > 0, UInt8(ascii: "]") where depth > 0:
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    if depth == 0, isSpace(byte) || wordEnds.contains(byte) { return index }
                }
            }
            index += 1
        }
        return depth == 0 && !inString ? bytes.endIndex : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
