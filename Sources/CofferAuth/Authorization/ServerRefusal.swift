/// What a server said when it refused a request, as MobileFirst (`{"errorCode", "errorMsg"}`) and
/// Oracle Mobile Hub (`{"title", "detail", "o:ecid", "o:errorCode"}`) write their error bodies.
/// The texts are the server's, cleaned to one line of at most 200 characters; Coffer never puts
/// a request's secrets in them.
public struct ServerRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public let status: Int
    /// The server's error code, such as `INVALID_CLIENT_ID` or `MOBILE-58026`.
    public let code: String?
    /// The server's explanation (`errorMsg`, or Oracle's `detail`, else its `title`).
    public let message: String?
    /// Oracle's execution context id (`o:ecid`), which names the request in the server's logs.
    public let ecid: String?

    /// A refusal with these parts; the texts are cleaned to one line and cut to 200 characters.
    public init(status: Int, code: String? = nil, message: String? = nil, ecid: String? = nil) {
        self.status = status
        self.code = Self.clean(code)
        self.message = Self.clean(message)
        self.ecid = Self.clean(ecid)
    }

    /// The refusal an error body describes; `nil` when the body has none of the known members.
    init?(status: Int, body: [String: JSONValue]) {
        let code = (body["errorCode"] ?? body["o:errorCode"])?.stringValue
        let message = (body["errorMsg"] ?? body["detail"] ?? body["title"])?.stringValue
        guard code != nil || message != nil else { return nil }
        self.init(status: status, code: code, message: message, ecid: body["o:ecid"]?.stringValue)
    }

    public var description: String {
        var text = "HTTP \(status)"
        if let code { text += " \(code)" }
        if let message { text += ": \(message)" }
        if let ecid { text += " (ecid \(ecid))" }
        return text
    }

    private static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        let line = ChallengeText.oneLine(text)
        return line.isEmpty ? nil : line
    }
}
