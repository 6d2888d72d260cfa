import Foundation

/// A successful token reply (RFC 6749 §5.1, RFC 8693 §2.2.1, and OMC's exchange-token reply),
/// checked field by field.
package struct TokenReply: Sendable {
    let accessToken: String
    let tokenType: String
    /// `expires_in`, when the server gave one.
    let expiresIn: TimeInterval?
    /// `refresh_token` (RFC 6749 §6), when the server gave one.
    var refreshToken: String? = nil
    /// `id_token` (OpenID Connect Core §3.1.3.3), still unverified.
    var idToken: String? = nil
    /// `scope`, the scope granted when it differs from the one asked for.
    var scope: String? = nil

    /// The longest access, refresh or ID token accepted.
    static let maxTokenBytes = 16_384

    /// Parses and checks a 200 reply. `requireTokenType`: RFC 6749 makes `token_type` required;
    /// OMC's exchange reply may omit it (Bearer is then implied).
    static func parse(_ response: HTTPReply, requireTokenType: Bool) throws(AuthError) -> TokenReply {
        try parse(object: try JSONReply.object(response), requireTokenType: requireTokenType)
    }

    /// Checks a 200 reply's JSON object.
    static func parse(object: [String: JSONValue], requireTokenType: Bool) throws(AuthError) -> TokenReply {
        guard let tokenValue = object["access_token"], !tokenValue.isNull else {
            throw .malformedResponse(reason: "missing access_token")
        }
        guard let token = tokenValue.stringValue, !token.isEmpty, token.utf8.count <= maxTokenBytes,
              token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { throw .malformedResponse(reason: "unusable access_token") }
        let type: String
        switch object["token_type"] {
        case .string(let value): type = value
        case nil, .null?:
            guard !requireTokenType else { throw .malformedResponse(reason: "missing token_type") }
            type = "Bearer"
        default: throw .malformedResponse(reason: "token_type is not a string")
        }
        guard ASCIICase.equal(type, "Bearer") else {
            throw .malformedResponse(reason: "unsupported token_type \(type.prefix(32))")
        }
        return TokenReply(
            accessToken: token, tokenType: "Bearer", expiresIn: try expiresIn(object["expires_in"]),
            refreshToken: try optionalToken(object["refresh_token"], "refresh_token"),
            idToken: try optionalToken(object["id_token"], "id_token"),
            scope: object["scope"]?.stringValue)
    }

    /// An optional token member: absent or null is `nil`; otherwise visible ASCII within the size limit.
    private static func optionalToken(_ value: JSONValue?, _ name: String) throws(AuthError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let token) where !token.isEmpty && token.utf8.count <= maxTokenBytes
            && token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }):
            return token
        default: throw .malformedResponse(reason: "unusable \(name)")
        }
    }

    /// `expires_in` as a positive number of seconds; some servers send it as a string.
    private static func expiresIn(_ value: JSONValue?) throws(AuthError) -> TimeInterval? {
        let seconds: Double?
        switch value {
        case nil, .null?: return nil
        case .number(let number): seconds = number
        case .string(let text): seconds = Double(text)
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds > 0, seconds <= 10 * 365 * 86_400 else {
            throw .malformedResponse(reason: "expires_in is not a positive number of seconds")
        }
        return seconds
    }

    /// The token, with its expiry from `expires_in` or else `defaultLifetime`.
    package func accessToken(now: Date, defaultLifetime: TimeInterval) -> AccessToken {
        AccessToken(value: accessToken, type: tokenType, issuedAt: now, expiresAt: now.addingTimeInterval(expiresIn ?? defaultLifetime))
    }
}
