/// The attributes of an internet password beyond its server and account.
public struct InternetAttributes: Sendable, Hashable, Codable {
    /// The protocol, for example `https`.
    public var `protocol`: String?
    /// The port, 0–65535.
    public var port: Int?
    /// The path on the server.
    public var path: String?
    /// The authentication type, for example `httpBasic` or `oauth2`.
    public var authenticationType: String?

    /// Creates internet attributes; every field is optional.
    public init(protocol: String? = nil, port: Int? = nil, path: String? = nil, authenticationType: String? = nil) {
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
    }

    var isEmpty: Bool { self == InternetAttributes() }

    func validate() throws(CofferError) {
        if let port, !(0...65535).contains(port) { throw .invalidArgument(reason: "port must be 0-65535") }
        for (text, name) in [(`protocol`, "protocol"), (path, "path"), (authenticationType, "authenticationType")] {
            if let text { try Limits.check(text, limit: Limits.maxTextBytes, what: name) }
        }
    }
}
