import Foundation

/// The JSON of docker's credential helper protocol (docker/docker-credential-helpers,
/// credentials/credentials.go): `{"ServerURL", "Username", "Secret"}`. A `Username` of
/// `<token>` marks the secret as an identity token.
struct DockerCredentials: Equatable {
    var serverURL = ""
    var username = ""
    var secret = ""

    /// What `store` reads: the first JSON value on stdin, which must be an object (or `null`).
    /// Keys match as Go's decoder matches them (an exact name first, else any case); other
    /// keys are ignored; `null` leaves a field empty; anything after the value is ignored.
    init(json bytes: [UInt8]) throws {
        guard let first = Self.firstValue(in: bytes) else { throw DockerHelperError.invalidJSON("unexpected end of input") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(first), options: [.fragmentsAllowed])
        } catch {
            throw DockerHelperError.invalidJSON("malformed JSON")
        }
        if value is NSNull { return }
        guard let object = value as? [String: Any] else {
            throw DockerHelperError.invalidJSON("the credentials are not a JSON object")
        }
        func field(_ name: String) throws -> String {
            let key = object[name] != nil ? name : object.keys.first { $0.lowercased() == name.lowercased() }
            guard let key, let value = object[key], !(value is NSNull) else { return "" }
            guard let text = value as? String else { throw DockerHelperError.invalidJSON("\(name) is not a JSON string") }
            return text
        }
        serverURL = try field("ServerURL")
        username = try field("Username")
        secret = try field("Secret")
    }

    init(serverURL: String, username: String, secret: String) {
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
        let url = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !url.isEmpty else { throw DockerHelperError.missingServerURL }
        return url
    }

    /// The bytes of the first JSON value in `bytes` (after white space): an object or array up to
    /// its closing bracket, a string up to its closing quote, or a bare word or number.
    private static func firstValue(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let start = bytes.firstIndex(where: { !Self.isSpace($0) }) else { return nil }
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return bytes[start...index] }
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth <= 0 { return bytes[start...index] }
                default:
                    if depth == 0, isSpace(byte) { return bytes[start..<index] }
                }
            }
            index += 1
        }
        return depth == 0 && !inString ? bytes[start...] : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
