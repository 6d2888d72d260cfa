import CofferAgentWire
import CofferBase
import CofferCommandLine
import FoundationEssentials
import Glibc

/// Reads the credential description git writes on a helper's stdin: `key=value` lines up to a
/// blank line or the end of input (git-credential(1), "INPUT/OUTPUT FORMAT").
///
/// The whole request is refused, before anything is answered or stored, when a line (its
/// newline included) is longer than 65,535 bytes, when it holds a NUL byte, when a line has no
/// `=`, when a boolean is not one, when a name git turns into an item (protocol, host, path,
/// username, authtype) is not UTF-8, or when the request passes ``maxRequestBytes``. Keys this
/// helper does not know are ignored, as git's own reader does.
package enum GitCredentialReader {
    /// The longest line git's format allows, its newline included.
    static let maxLineBytes = 65_535
    /// The most a whole request may hold (many `wwwauth[]` lines, say).
    static let maxRequestBytes = 1 << 20

    /// Why a request was refused; the message never holds a value.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads and parses the request on `fd` (stdin).
    package static func read(from fd: Int32 = STDIN_FILENO) throws -> GitCredential {
        var bytes = try readRequest(from: fd)
        defer { SecretMemory.zero(&bytes) }
        return try parse(bytes)
    }

    /// Reads one request from `bytes`, all of it at hand (the agent's `helperGet`), refusing
    /// what ``read(from:)`` refuses.
    package static func read(_ bytes: [UInt8]) throws -> GitCredential {
        var lineStart = 0
        while lineStart < bytes.count {
            let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
            let line = bytes[lineStart..<(newline.map { $0 + 1 } ?? bytes.count)]
            // The end of input ends the last line as its newline would.
            try checkLine(newline == nil ? line + [UInt8(ascii: "\n")] : Array(line))
            if GitRequestEnd.isBlankLine(line) { return try parse(bytes) }
            lineStart = line.endIndex
        }
        guard bytes.count <= maxRequestBytes else { throw Refusal(description: "the request is larger than \(maxRequestBytes) bytes") }
        return try parse(bytes)
    }

    /// Parses the bytes of one request (up to its blank line).
    static func parse(_ bytes: [UInt8]) throws -> GitCredential {
        var credential = GitCredential()
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            // The end of input ends the last line as its newline would.
            let blank = end < bytes.count ? GitRequestEnd.isBlankLine(bytes[start...end]) : GitRequestEnd.isBlankLine(bytes[start...] + [UInt8(ascii: "\n")])
            if blank { break }
            var line = bytes[start..<end]
            start = end + 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw Refusal(description: "line \(lineNumber) of the request has no '='")
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            try credential.take(key, Data(line[(equals + 1)...]))
        }
        return credential
    }

    /// The request's bytes up to and without its blank line, checked for NUL bytes and line lengths.
    private static func readRequest(from fd: Int32) throws -> [UInt8] {
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        defer { SecretMemory.zero(&chunk) }
        var lineStart = 0
        var scanned = 0
        while true {
            // A line's length is known once its newline (or the end of input) arrives; a line
            // still open past the limit is refused without reading the rest.
            while let newline = request[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                try checkLine(request[lineStart...newline])
                if GitRequestEnd.isBlankLine(request[lineStart...newline]) {
                    return Array(request[..<lineStart])
                }
                lineStart = newline + 1
                scanned = lineStart
            }
            scanned = request.count
            guard request.count - lineStart < maxLineBytes else { throw tooLong }
            guard request.count <= maxRequestBytes else {
                throw Refusal(description: "the request is larger than \(maxRequestBytes) bytes")
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Refusal(description: "cannot read the request: \(String(cString: strerror(errno)))") }
            if count == 0 {
                // The end of input ends the last line as its newline would.
                try checkLine(request[lineStart...] + [UInt8(ascii: "\n")])
                return request
            }
            request += chunk[..<count]
        }
    }

    private static func checkLine(_ line: some Collection<UInt8>) throws {
        guard line.count <= maxLineBytes else { throw tooLong }
        guard !line.contains(0) else { throw Refusal(description: "the request holds a NUL byte") }
    }

    private static let tooLong = Refusal(description: "a line of the request is longer than \(maxLineBytes) bytes")
}

extension GitCredential {
    /// Takes one `key=value` line; later lines replace earlier ones, `key[]` lines add to a list
    /// (an empty value clears it). Values that depend on a capability count only after it is announced.
    fileprivate mutating func take(_ key: String, _ value: Data) throws {
        func text() throws -> String {
            guard let text = String(validating: value, as: UTF8.self) else {
                throw GitCredentialReader.Refusal(description: "the request's \(key) is not valid UTF-8")
            }
            return text
        }
        let understandsAuthType = capabilities.contains(.authType)
        switch key {
        case "protocol": `protocol` = try text()
        case "host": host = try text()
        case "path": path = try text()
        case "username": username = try text()
        case "password": password = value
        case "password_expiry_utc": passwordExpiry = Self.timestamp(value)
        case "oauth_refresh_token": oauthRefreshToken = value
        case "authtype" where understandsAuthType: authType = try text()
        case "credential" where understandsAuthType: credential = value
        case "ephemeral" where understandsAuthType: ephemeral = try Self.boolean(value, key: key)
        case "capability[]":
            if let capability = Capability(rawValue: String(decoding: value, as: UTF8.self)) { capabilities.insert(capability) }
        case "wwwauth[]": Self.append(value, to: &wwwAuthenticate)
        case "state[]": Self.append(value, to: &state)
        default: break
        }
    }

    private static func append(_ value: Data, to list: inout [String]) {
        if value.isEmpty { list = [] } else { list.append(String(decoding: value, as: UTF8.self)) }
    }

    /// git's reading of `password_expiry_utc`: the leading decimal digits; none, 0 or an
    /// overflow mean no expiry.
    static func timestamp(_ value: Data) -> UInt64? {
        var text = Substring(String(decoding: value, as: UTF8.self))
        text = text.drop { $0 == " " || $0 == "\t" }
        if text.first == "+" { text = text.dropFirst() }
        guard let number = UInt64(text.prefix { $0.isASCII && $0.isNumber }), number > 0 else { return nil }
        return number
    }

    /// git's booleans: true, yes, on, false, no, off (any case), empty (false), or an integer.
    static func boolean(_ value: Data, key: String) throws -> Bool {
        let text = String(decoding: value, as: UTF8.self).lowercased()
        switch text {
        case "true", "yes", "on": return true
        case "false", "no", "off", "": return false
        default:
            guard let number = Int(text) else { throw GitCredentialReader.Refusal(description: "the request's \(key) is not a boolean") }
            return number != 0
        }
    }
}
