import Foundation

/// A user (or client) and password in HTTP Basic form (RFC 7617).
package struct BasicCredentials: Sendable, Hashable {
    package let user: String
    package let password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `Basic base64(user:password)`.
    package var headerValue: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Parses an `Authorization` header value; `nil` unless it is well-formed Basic.
    package init?(headerValue: String) {
        guard let token = AuthorizationScheme.parameter(of: headerValue, scheme: "Basic"),
              let data = Data(base64Encoded: token),
              let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":")
        else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }
}

extension BasicCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "BasicCredentials(user: \(user), password: redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["user": user]) }
}

/// Splits `Authorization` header values into scheme and parameter.
package enum AuthorizationScheme {
    /// The parameter of `value` when its scheme is `scheme` (case-insensitive), else `nil`.
    package static func parameter(of value: String, scheme: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].caseInsensitiveCompare(scheme) == .orderedSame else { return nil }
        let parameter = parts[1].trimmingCharacters(in: .whitespaces)
        return parameter.isEmpty ? nil : parameter
    }
}
