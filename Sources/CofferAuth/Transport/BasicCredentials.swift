import Foundation

/// A user (or client) and password in HTTP Basic form (RFC 7617).
struct BasicCredentials: Sendable, Hashable {
    let user: String
    let password: String

    init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `Basic base64(user:password)`.
    var headerValue: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Parses an `Authorization` header value; `nil` unless it is well-formed Basic.
    init?(headerValue: String) {
        guard let token = AuthorizationScheme.parameter(of: headerValue, scheme: "Basic"),
              let data = Data(base64Encoded: token),
              let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":")
        else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }
}

extension BasicCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String { "BasicCredentials(user: \(user), password: redacted)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["user": user]) }
}

/// Splits `Authorization` header values into scheme and parameter.
enum AuthorizationScheme {
    /// The parameter of `value` when its scheme is `scheme` (case-insensitive), else `nil`.
    static func parameter(of value: String, scheme: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].caseInsensitiveCompare(scheme) == .orderedSame else { return nil }
        let parameter = parts[1].trimmingCharacters(in: .whitespaces)
        return parameter.isEmpty ? nil : parameter
    }
}
