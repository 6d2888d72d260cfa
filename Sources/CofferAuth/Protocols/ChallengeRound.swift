import Foundation

/// One reply of an authorization round (docs/protocol.md 8.2, 8.3 and 9.2): the security checks
/// or realms that succeeded, and what comes next. Each protocol reads its own replies into it
/// (``MobileFirstReply``, ``ClientAccessReply``).
package struct ChallengeRound: Sendable {
    package enum Outcome: Sendable {
        /// Every check of the scope is satisfied; `code` is the authorization code, when the
        /// reply was the authorization endpoint's redirect.
        case granted(code: String?)
        /// A challenge (an object, or `null`) for each named check.
        case challenges([String: JSONValue])
        /// The named checks failed.
        case failures([String: JSONValue])
        /// The server does not know the client: register again.
        case unknownClient
    }

    package var outcome: Outcome
    /// The checks that succeeded, with what they sent (`{"user": …}`, `{"userIdentity": …}`).
    package var successes: [String: JSONValue] = [:]
    /// The server's clock, when the reply told it (MobileFirst's `clockSynchronization`).
    package var serverTime: Date? = nil

    /// The most checks one reply may name.
    static let maxEntries = 32
    /// The longest authorization code accepted.
    static let maxCodeBytes = 4096

    /// The members of `value`, an object keyed by security-check or realm name (missing or
    /// `null`: none).
    static func entries(_ value: JSONValue?, _ what: String) throws(AuthError) -> [String: JSONValue] {
        switch value {
        case nil, .null?: return [:]
        case .object(let members)?:
            guard members.count <= maxEntries else { throw .malformedResponse(reason: "too many \(what)") }
            guard members.keys.allSatisfy(ChallengeText.isValidName) else {
                throw .malformedResponse(reason: "\(what) names an unusable security check")
            }
            return members
        default:
            throw .malformedResponse(reason: "\(what) is not an object")
        }
    }

    /// The query parameters of a redirect's `Location` (the first of each name).
    static func redirectQuery(_ response: HTTPReply) throws(AuthError) -> [String: String] {
        guard let location = response.header("Location"), let components = URLComponents(string: location),
              let pairs = FormEncoding.decode(components.percentEncodedQuery ?? "")
        else { throw .malformedResponse(reason: "the redirect has no usable Location") }
        return Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The authorization code of a redirect's query; `nil` when it has none.
    static func code(in query: [String: String]) throws(AuthError) -> String? {
        guard let code = query["code"] else { return nil }
        guard !code.isEmpty, code.utf8.count <= maxCodeBytes else { throw .malformedResponse(reason: "the redirect carries an unusable code") }
        return code
    }
}
