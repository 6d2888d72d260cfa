import Foundation

/// A complete HTTP reply: status, headers and a body read up to the size limit.
public struct HTTPReply: Sendable {
    /// The status code.
    public let status: Int
    /// The header fields, in order. Names compare case-insensitively through ``header(_:)``.
    public let headers: [(name: String, value: String)]
    /// The body.
    public let body: Data

    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { ASCIICase.equal($0.name, name) }?.value
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
