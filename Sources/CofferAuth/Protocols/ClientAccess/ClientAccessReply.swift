import Foundation

/// How the replies of a Mobile Client Access authorization server read (docs/protocol.md 9.2):
/// bodies that may be secure JSON, the composite challenge, and the redirect whose `wl_result`
/// reports the realms' successes and failures.
package enum ClientAccessReply {
    /// A JSON object body, plain (with a JSON content type) or wrapped as secure JSON (whatever
    /// its content type).
    static func object(_ response: HTTPReply) throws(AuthError) -> [String: JSONValue] {
        guard let inner = SecureJSON.unwrap(response.body) else { return try JSONReply.object(response) }
        guard let object = JSONValue(parsing: inner)?.objectValue else { throw .malformedResponse(reason: "the secure JSON body is not a JSON object") }
        return object
    }

    /// An authorization reply.
    package static func round(_ response: HTTPReply) throws(AuthError) -> ChallengeRound {
        switch response.status {
        case 301, 302, 303, 307:
            let query = try ChallengeRound.redirectQuery(response)
            var result: JSONValue = [:]
            if let text = query["wl_result"] {
                guard let value = JSONValue(parsing: Data(text.utf8)), value.objectValue != nil else {
                    throw .malformedResponse(reason: "wl_result is not a JSON object")
                }
                result = value
            }
            let successes = try ChallengeRound.entries(result[ClientAccessPath.successMember], "successes")
            let failures = try ChallengeRound.entries(result[ClientAccessPath.failureMember], "failures")
            // As in the Android SDK: a failure ends the flow, code or not.
            if !failures.isEmpty { return ChallengeRound(outcome: .failures(failures), successes: successes) }
            guard let code = try ChallengeRound.code(in: query) else { throw .malformedResponse(reason: "the redirect carries no code") }
            return ChallengeRound(outcome: .granted(code: code), successes: successes)
        case 401 where isCompositeChallenge(response):
            let challenges = try ChallengeRound.entries(try object(response)["challenges"], "challenges")
            guard !challenges.isEmpty else { throw .malformedResponse(reason: "a 401 with no challenge in it") }
            return ChallengeRound(outcome: .challenges(challenges))
        case 400:
            // The iOS SDK forgets its registration and registers again (once) after a 400.
            return ChallengeRound(outcome: .unknownClient)
        default:
            throw ErrorReply.error(for: response)
        }
    }

    /// The registration reply: `{"certificate", "clientId"}` (the certificate is not checked here).
    package static func registration(_ response: HTTPReply) throws(AuthError) -> (clientID: String, certificate: String) {
        guard response.isSuccess else { throw ErrorReply.error(for: response) }
        let body = try object(response)
        guard let certificate = body["certificate"]?.stringValue else { throw .malformedResponse(reason: "the registration reply has no certificate") }
        guard let id = body["clientId"]?.stringValue, !id.isEmpty, id.utf8.count <= 1024,
              id.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { throw .malformedResponse(reason: "the registration reply has no usable clientId") }
        return (id, certificate)
    }

    /// 401 with `WWW-Authenticate: WL-Composite-Challenge` (compared without regard to case, as the Android SDK does).
    static func isCompositeChallenge(_ response: HTTPReply) -> Bool {
        response.header(HeaderName.wwwAuthenticate)?.trimmingCharacters(in: .whitespaces)
            .caseInsensitiveCompare(ClientAccessPath.challengeScheme) == .orderedSame
    }

    /// The token reply: `access_token` and `id_token` (both required, as in the SDKs), and the
    /// user of the ID token's `imf.user` claim.
    static func token(_ response: HTTPReply) throws(AuthError) -> TokenStep {
        guard response.status == 200 else { throw ErrorReply.error(for: response) }
        let reply = try TokenReply.parse(object: try object(response), requireTokenType: false)
        guard let idToken = reply.idToken else { throw .malformedResponse(reason: "the token reply has no id_token") }
        return .granted(TokenGrant(reply: reply, user: try user(inIDToken: idToken), resourceIDToken: idToken))
    }

    /// The user of an ID token's `imf.user` claim (`{"id", "displayName", "authBy"}`), read as the
    /// SDKs read it: from the payload, without checking the signature (it came from the
    /// authorization server over the checked transport); `nil` when the claim is absent.
    static func user(inIDToken idToken: String) throws(AuthError) -> AuthenticatedUser? {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]), let claims = JSONValue(parsing: payload)?.objectValue else {
            throw .malformedResponse(reason: "the id_token is not a JWT")
        }
        guard let user = claims[ClientAccessPath.userClaim], !user.isNull else { return nil }
        guard user.objectValue != nil, let identity = AuthenticatedUser(success: ["userIdentity": user]) else {
            throw .malformedResponse(reason: "the id_token's imf.user names no user")
        }
        return identity
    }
}
