import Foundation

/// One reply of an authorization round (docs/protocol.md 8.2, 8.3 and 9.2): the security checks
/// or realms that succeeded, and what comes next.
package struct ChallengeRound: Sendable {
    package enum Outcome: Sendable {
        /// Every check of the scope is satisfied; `code` is the authorization code, when the
        /// reply was the authorization endpoint's redirect.
        case granted(code: String?)
        /// 401: a challenge (an object, or `null`) for each named check.
        case challenges([String: JSONValue])
        /// 403: the named checks failed.
        case failures([String: JSONValue])
        /// The server does not know the client (`invalid_client`): register again.
        case unknownClient
    }

    package var outcome: Outcome
    /// The checks that succeeded, with what they sent (`{"user": …}`, `{"userIdentity": …}`).
    package var successes: [String: JSONValue] = [:]

    /// The most checks one reply may name.
    static let maxEntries = 32

    /// Reads a preauthorize or authorization reply.
    package static func parse(_ response: HTTPResponse) throws(AuthError) -> ChallengeRound {
        switch response.status {
        case 200:
            let body = try JSONReply.object(response)
            return ChallengeRound(outcome: .granted(code: nil), successes: try entries(body["successes"], "successes"))
        case 301, 302, 303, 307:
            return try redirect(response)
        case 401:
            let body = try JSONReply.object(response)
            if body["error"]?.stringValue == "invalid_client" { return ChallengeRound(outcome: .unknownClient) }
            guard body["challenges"]?.objectValue != nil else { throw .malformedResponse(reason: "a 401 without challenges") }
            let challenges = try entries(body["challenges"], "challenges")
            guard !challenges.isEmpty else { throw .malformedResponse(reason: "a 401 with no challenge in it") }
            return ChallengeRound(outcome: .challenges(challenges), successes: try entries(body["successes"], "successes"))
        case 403:
            guard let body = try? JSONReply.object(response), body["failures"]?.objectValue != nil else {
                throw .serverError(status: 403)
            }
            let failures = try entries(body["failures"], "failures")
            guard !failures.isEmpty else { throw .serverError(status: 403) }
            return ChallengeRound(outcome: .failures(failures), successes: try entries(body["successes"], "successes"))
        case 400:
            if (try? JSONReply.object(response))?["error"]?.stringValue == "invalid_client" {
                return ChallengeRound(outcome: .unknownClient)
            }
            throw TokenEndpointReply.refusal(response)
        default:
            throw .serverError(status: response.status)
        }
    }

    /// The authorization endpoint's redirect: `Location: <redirect_uri>?code=…[&wl_result=<JSON>]`.
    private static func redirect(_ response: HTTPResponse) throws(AuthError) -> ChallengeRound {
        guard let location = response.header("Location"), let components = URLComponents(string: location),
              let pairs = FormEncoding.decode(components.percentEncodedQuery ?? "")
        else { throw .malformedResponse(reason: "the redirect has no usable Location") }
        let query = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            throw .malformedResponse(reason: "the redirect carries no authorization code")
        }
        var successes: [String: JSONValue] = [:]
        if let result = query["wl_result"] {
            guard let value = JSONValue(parsing: Data(result.utf8)) else { throw .malformedResponse(reason: "wl_result is not JSON") }
            successes = try entries(value["successes"], "successes")
        }
        return ChallengeRound(outcome: .granted(code: code), successes: successes)
    }

    /// The members of `value`, an object keyed by security-check name (missing or `null`: none).
    private static func entries(_ value: JSONValue?, _ what: String) throws(AuthError) -> [String: JSONValue] {
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
}
