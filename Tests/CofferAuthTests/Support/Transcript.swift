@testable import CofferAuth
import Foundation
import XCTest

/// A golden transcript (Tests/CofferAuthTests/Fixtures/Transcripts/*.txt): the requests a vendor
/// SDK sends and the replies its server gives, in order, as docs/protocol.md cites them.
///
///     # comment lines (sources) before the first exchange
///     >>> POST /mfp/api/registration/v1/self
///     Content-Type: application/json
///
///     {"signedRegistrationData": {"header": "*", "payload": "*", "signature": "*"}}
///     <<< 201
///     Location: {base}/mfp/api/registration/clients/{client}
///
///     {}
///
/// A request names its method and path; the query parameters, headers and body it shows must be
/// sent (a form or a JSON object with exactly those names). `*` matches any value, and
/// `{name}` stands for a value the test gives (`{base}` is the server's URL). A reply is sent as
/// written, after the same substitution.
struct Transcript {
    struct Request {
        let method: String
        let path: String
        let query: [String: String]
        let headers: [(name: String, value: String)]
        let body: String
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data
    }

    let name: String
    private(set) var exchanges: [(request: Request, reply: (status: Int, headers: [(String, String)], body: String))] = []

    /// Reads `Fixtures/Transcripts/<name>.txt`.
    init(_ name: String) throws {
        self.name = name
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Transcripts/\(name).txt")
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [(start: String, lines: [String])] = []
        for line in lines {
            if line.hasPrefix(">>> ") || line.hasPrefix("<<< ") {
                blocks.append((line, []))
            } else if !blocks.isEmpty {
                blocks[blocks.count - 1].lines.append(line)
            }
        }
        var pending: Request?
        for block in blocks {
            var headers: [(String, String)] = []
            var index = 0
            while index < block.lines.count, !block.lines[index].isEmpty {
                let line = block.lines[index]
                let colon = line.firstIndex(of: ":")!
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
                index += 1
            }
            var bodyLines = Array(block.lines.dropFirst(index + 1))
            while bodyLines.last?.isEmpty == true { bodyLines.removeLast() }
            let body = bodyLines.joined(separator: "\n")
            let words = block.start.dropFirst(4).split(separator: " ", maxSplits: 1).map(String.init)
            if block.start.hasPrefix(">>> ") {
                let target = words[1]
                let path = String(target.prefix { $0 != "?" })
                let query = target.contains("?") ? Self.formFields(String(target.drop { $0 != "?" }.dropFirst())) : [:]
                pending = Request(method: words[0], path: path, query: query, headers: headers, body: body)
            } else {
                exchanges.append((pending!, (Int(words[0])!, headers, body)))
                pending = nil
            }
        }
    }

    /// The replies, for a ``TranscriptServer``; `values` fills the placeholders at reply time.
    func replies(_ values: @escaping @Sendable (TranscriptServer.Recorded) -> [String: String] = { _ in [:] }) -> [@Sendable (TranscriptServer.Recorded, URL) -> Reply] {
        exchanges.map { exchange in
            let reply = exchange.reply
            let headers = reply.headers
            return { recorded, base in
                var all = values(recorded)
                all["base"] = base.absoluteString
                return Reply(
                    status: reply.status, headers: headers.map { ($0.0, Self.fill($0.1, all)) }, body: Data(Self.fill(reply.body, all).utf8))
            }
        }
    }

    /// One reply for a ``TranscriptServer`` script written in a test; `{base}` is the server's URL.
    static func reply(_ status: Int, _ headers: [(String, String)] = [], _ body: String = "") -> @Sendable (TranscriptServer.Recorded, URL) -> Reply {
        { _, base in
            Reply(status: status, headers: headers.map { ($0.0, fill($0.1, ["base": base.absoluteString])) }, body: Data(fill(body, ["base": base.absoluteString]).utf8))
        }
    }

    /// A JSON reply.
    static func json(_ status: Int, _ body: String, _ headers: [(String, String)] = []) -> @Sendable (TranscriptServer.Recorded, URL) -> Reply {
        reply(status, [("Content-Type", "application/json")] + headers, body)
    }

    /// Fails the test for every way `requests` differ from the transcript's requests.
    func check(_ requests: [TranscriptServer.Recorded], values: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(requests.map(\.description), exchanges.map { "\($0.request.method) \($0.request.path)" }, "\(name): the requests, in order", file: file, line: line)
        for (sent, expected) in zip(requests, exchanges.map(\.request)) {
            let label = "\(name): \(sent)"
            XCTAssertEqual(sent.method, expected.method, label, file: file, line: line)
            XCTAssertEqual(sent.path, Self.fill(expected.path, values), label, file: file, line: line)
            let query = sent.query
            for (key, value) in expected.query {
                XCTAssertTrue(Self.matches(query[key], Self.fill(value, values)), "\(label): query \(key) is \(query[key] ?? "missing")", file: file, line: line)
            }
            for (key, value) in expected.headers {
                XCTAssertTrue(Self.matches(sent.header(key), Self.fill(value, values)), "\(label): header \(key) is \(sent.header(key) ?? "missing")", file: file, line: line)
            }
            guard !expected.body.isEmpty else { continue }
            if let expectedJSON = JSONValue(parsing: Data(Self.fill(expected.body, values).utf8)) {
                guard let sentJSON = JSONValue(parsing: sent.body) else { XCTFail("\(label): the body is not JSON", file: file, line: line); continue }
                XCTAssertTrue(Self.matches(sentJSON, expectedJSON), "\(label): the JSON body \(sent.text) is not \(expected.body)", file: file, line: line)
            } else {
                let expectedForm = Self.formFields(expected.body), sentForm = sent.form
                XCTAssertEqual(Set(sentForm.keys), Set(expectedForm.keys), "\(label): the form's fields", file: file, line: line)
                for (key, value) in expectedForm {
                    XCTAssertTrue(Self.matches(sentForm[key], Self.fill(value, values)), "\(label): form field \(key) is \(sentForm[key] ?? "missing")", file: file, line: line)
                }
            }
        }
    }

    // MARK: Matching

    static func fill(_ text: String, _ values: [String: String]) -> String {
        values.reduce(text) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
    }

    static func matches(_ value: String?, _ pattern: String) -> Bool {
        guard let value else { return false }
        if pattern == "*" { return true }
        if pattern.hasSuffix("*") { return value.hasPrefix(pattern.dropLast()) }
        return value == pattern
    }

    /// `sent` has the same members as `expected` (recursively), where the string `"*"` matches anything.
    static func matches(_ sent: JSONValue, _ expected: JSONValue) -> Bool {
        if expected.stringValue == "*" { return true }
        if let members = expected.objectValue {
            guard let sentMembers = sent.objectValue, Set(sentMembers.keys) == Set(members.keys) else { return false }
            return members.allSatisfy { key, value in matches(sentMembers[key]!, value) }
        }
        return sent == expected
    }

    /// The fields of a form (or a query), decoded; the first of each name.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }
}
