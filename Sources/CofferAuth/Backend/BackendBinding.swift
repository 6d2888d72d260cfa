import Foundation

/// The backend a stored session belongs to: its base URL, backend id and version.
///
/// A stored token is only ever used with the backend that issued it.
public struct BackendBinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The base URL, without a trailing slash.
    public let baseURL: String
    /// The backend id.
    public let backendID: String
    /// The backend version, if any.
    public let version: String?

    public init(baseURL: URL, backendID: String, version: String?) {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.baseURL = text
        self.backendID = backendID
        self.version = version
    }

    public var description: String {
        "\(baseURL) [\(backendID)\(version.map { " v\($0)" } ?? "")]"
    }
}
