import CofferBase
import Foundation
import Glibc

/// A small HTTP/1.1 client for tests, over a plain socket, that only talks to loopback
/// (127.0.0.0/8, `::1`, `localhost`): what a browser, or an attacker replaying a token, sends.
///
/// Nothing is automatic: no redirects are followed and no cookies kept (``BrowserPlayer`` does
/// both). Every request says `Connection: close`; the reply is read to its `Content-Length`, the
/// end of its chunks, or the end of the connection. The blocking socket work runs on a
/// Dispatch thread, never on the cooperative pool.
public enum LoopbackHTTP {
    /// One header line.
    public struct Header: Sendable, Hashable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A reply.
    public struct Response: Sendable, CustomStringConvertible {
        public let status: Int
        public let headers: [Header]
        public let body: Data

        /// The first header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Every header named `name` (case-insensitive), in order.
        public func headers(named name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object, when it is one.
        public func jsonObject() -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        }

        /// A string member of the JSON object body.
        public func jsonString(_ name: String) -> String? {
            jsonObject()?[name] as? String
        }

        /// Status and size only: bodies may hold tokens.
        public var description: String { "HTTP \(status) (\(body.count) bytes)" }
    }

    /// Why a request failed.
    public enum Failure: Error, CustomStringConvertible {
        case notLoopback(String)
        case socket(String)
        case timedOut(String)
        case malformedReply(String)

        public var description: String {
            switch self {
            case .notLoopback(let url): "LoopbackHTTP talks to loopback only, not \(url)"
            case .socket(let reason): "LoopbackHTTP: \(reason)"
            case .timedOut(let url): "LoopbackHTTP: \(url) did not answer in time"
            case .malformedReply(let reason): "LoopbackHTTP: malformed reply: \(reason)"
            }
        }
    }

    /// Sends one request and reads the whole reply.
    public static func send(
        _ method: String, _ url: URL, headers: [Header] = [], body: Data? = nil, timeout: Duration = .seconds(20)
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try exchange(method, url, headers: headers, body: body, timeout: timeout) })
            }
        }
    }

    /// `GET url`.
    public static func get(_ url: URL, headers: [Header] = []) async throws -> Response {
        try await send("GET", url, headers: headers)
    }

    /// `POST url` with an `application/x-www-form-urlencoded` body.
    public static func postForm(_ url: URL, _ fields: [(String, String)], headers: [Header] = []) async throws -> Response {
        try await send(
            "POST", url, headers: headers + [Header("Content-Type", "application/x-www-form-urlencoded")],
            body: Data(formEncoded(fields).utf8))
    }

    /// `application/x-www-form-urlencoded`: everything but unreserved characters percent-encoded.
    public static func formEncoded(_ fields: [(String, String)]) -> String {
        fields.map { "\(formEscape($0.0))=\(formEscape($0.1))" }.joined(separator: "&")
    }

    static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    // MARK: The exchange, blocking

    private static func exchange(_ method: String, _ url: URL, headers: [Header], body: Data?, timeout: Duration) throws -> Response {
        guard url.scheme?.lowercased() == "http", var host = url.host else { throw Failure.notLoopback(url.absoluteString) }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? 80
        let deadline = ContinuousClock.now + timeout
        let fd = try connect(host: host, port: port, url: url, timeout: timeout)
        defer { close(fd) }

        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let hostHeader = url.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 } ?? host
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(hostHeader)\(url.port.map { ":\($0)" } ?? "")\r\n"
        head += "User-Agent: coffer-tests\r\nAccept: */*\r\nConnection: close\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try write(fd, Data(head.utf8) + (body ?? Data()), url: url)

        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let response = try parse(received, method: method, complete: false) { return response }
            guard ContinuousClock.now < deadline else { throw Failure.timedOut(url.absoluteString) }
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut(url.absoluteString) }
                throw Failure.socket("read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            received.append(chunk, count: count)
        }
        guard let response = try parse(received, method: method, complete: true) else {
            throw Failure.malformedReply("the connection closed before the reply was complete")
        }
        return response
    }

    private static func connect(host: String, port: Int, url: URL, timeout: Duration) throws -> Int32 {
        let isIPv6 = host.contains(":")
        guard isIPv6 ? host == "::1" : (host == "localhost" || host.hasPrefix("127.")) else {
            throw Failure.notLoopback(url.absoluteString)
        }
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket("socket: \(String(cString: strerror(errno)))") }
        var limit = timeout.clampedTimeval
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
                close(fd)
                throw Failure.notLoopback(url.absoluteString)
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure.socket("connect to \(host):\(port): \(reason)")
        }
        return fd
    }

    private static func write(_ fd: Int32, _ data: Data, url: URL) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw Failure.socket("write to \(url.host ?? ""): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    /// The reply in `data`, or `nil` while it is incomplete. `complete`: the connection has closed.
    private static func parse(_ data: Data, method: String, complete: Bool) throws -> Response? {
        let bytes = [UInt8](data)
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
            if complete { throw Failure.malformedReply("no end of headers") }
            return nil
        }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure.malformedReply("status line \(lines[0].prefix(60))")
        }
        var headers: [Header] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformedReply("header line without a colon") }
            headers.append(Header(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let response = { (body: [UInt8]) in Response(status: status, headers: headers, body: Data(body)) }
        let bodyStart = headEnd + 4
        let rest = Array(bytes[bodyStart...])
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) { return response([]) }
        let first = { (name: String) in headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        if first("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            var body: [UInt8] = []
            var index = 0
            while true {
                guard let lineEnd = find([13, 10], in: rest, from: index) else {
                    if complete { throw Failure.malformedReply("truncated chunk") }
                    return nil
                }
                let sizeText = String(decoding: rest[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw Failure.malformedReply("chunk size")
                }
                let dataStart = lineEnd + 2
                if size == 0 { return response(body) }  // trailers, if any, are ignored
                guard rest.count >= dataStart + size + 2 else {
                    if complete { throw Failure.malformedReply("truncated chunk") }
                    return nil
                }
                body += rest[dataStart..<(dataStart + size)]
                index = dataStart + size + 2
            }
        }
        if let lengthText = first("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else { throw Failure.malformedReply("Content-Length") }
            guard rest.count >= length else {
                if complete { throw Failure.malformedReply("the body is shorter than its Content-Length") }
                return nil
            }
            return response(Array(rest[..<length]))
        }
        return complete ? response(rest) : nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
