import Foundation
import CofferAuth

/// A fuzz input read as an HTTP reply, so that seeds stay readable and the fuzzer mutates the
/// status and headers too:
///
///     401
///     Content-Type: application/json
///
///     {"challenges": …}
///
/// The first line is the status (0 when not a number), header lines follow up to an empty
/// line, and the rest is the body. Lines without a colon are skipped.
enum ReplyInput {
    static func response(_ bytes: [UInt8]) -> HTTPReply {
        let newline = UInt8(ascii: "\n")
        var head = bytes[...], body = bytes[bytes.endIndex...]
        if let split = bytes.indices.first(where: { bytes[$0] == newline && $0 + 1 < bytes.endIndex && bytes[$0 + 1] == newline }) {
            head = bytes[..<split]
            body = bytes[(split + 2)...]
        }
        let lines = head.split(separator: newline, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let status = Int(lines.first ?? "") ?? 0
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        return HTTPReply(status: status, headers: headers, body: Data(body))
    }
}
