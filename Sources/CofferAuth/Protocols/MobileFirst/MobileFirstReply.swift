import Foundation

/// How the replies of a MobileFirst 8 runtime read (docs/protocol.md 8.2–8.4): rounds of
/// challenges, successes and failures, the authorization redirect, the unknown-client error, the
/// server's clock, and its error bodies.
package enum MobileFirstReply {
    /// A preauthorize or authorization reply.
    package static func round(_ response: HTTPReply) throws(AuthError) -> ChallengeRound {
        if isUnknownClient(response) { return ChallengeRound(outcome: .unknownClient) }
        switch response.status {
        case 200:
            let body = try JSONReply.object(response)
            return try withClock(ChallengeRound(outcome: .granted(code: nil), successes: try ChallengeRound.entries(body["successes"], "successes")))
        case 301, 302, 303, 307:
            let query = try ChallengeRound.redirectQuery(response)
            guard let code = try ChallengeRound.code(in: query) else {
                // The Android SDK reads an `errorMsg` parameter from a redirect without a code.
                throw .refused(ServerRefusal(status: response.status, code: query["error"], message: query["errorMsg"] ?? "the redirect carries no code"))
            }
            return ChallengeRound(outcome: .granted(code: code))
        case 401 where isChallenge(response):
            let body = try JSONReply.object(response)
            let challenges = try ChallengeRound.entries(body["challenges"], "challenges")
            guard !challenges.isEmpty else { throw .malformedResponse(reason: "a 401 with no challenge in it") }
            return try withClock(ChallengeRound(outcome: .challenges(challenges), successes: try ChallengeRound.entries(body["successes"], "successes")))
        case 403, 222:
            // The web SDK takes 403 (and 222) with `failures` as the checks' failures.
            guard let body = try? JSONReply.object(response), body["failures"]?.objectValue != nil else { throw ErrorReply.error(for: response) }
            let failures = try ChallengeRound.entries(body["failures"], "failures")
            guard !failures.isEmpty else { throw ErrorReply.error(for: response) }
            return try withClock(ChallengeRound(outcome: .failures(failures), successes: try ChallengeRound.entries(body["successes"], "successes")))
        default:
            throw ErrorReply.error(for: response)
        }
    }

    /// The registration reply: 201 (or another success) with the client's URL in `Location`
    /// (`…/registration/clients/{id}`); the id is its last path segment, 1 to 1024 visible ASCII
    /// characters.
    package static func registeredClientID(_ response: HTTPReply) throws(AuthError) -> String {
        guard response.isSuccess else { throw ErrorReply.error(for: response) }
        guard let location = response.header("Location"), let path = URLComponents(string: location)?.path,
              let last = path.split(separator: "/").last, let id = String(last).removingPercentEncoding,
              !id.isEmpty, id.utf8.count <= 1024, id.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { throw .malformedResponse(reason: "the registration reply has no usable Location") }
        return id
    }

    /// 401 with `WWW-Authenticate: MFP-Challenge` (compared without regard to case, as the Android SDK does).
    static func isChallenge(_ response: HTTPReply) -> Bool {
        response.header(HeaderName.wwwAuthenticate)?.trimmingCharacters(in: .whitespaces)
            .caseInsensitiveCompare(MobileFirstPath.challengeScheme) == .orderedSame
    }

    /// 400 `{"errorCode": "INVALID_CLIENT_ID"}`: the server does not know the client.
    static func isUnknownClient(_ response: HTTPReply) -> Bool {
        response.status == 400 && (try? JSONReply.object(response))?["errorCode"]?.stringValue == MobileFirstPath.unknownClientError
    }

    /// 409 with an `MFP-Conflict` header, of any value: send the same request again.
    static func isConflict(_ response: HTTPReply) -> Bool {
        response.status == 409 && response.header(MobileFirstPath.conflictHeader) != nil
    }

    /// The token reply. The SDKs read `access_token`, `expires_in` and `scope`, and ignore `token_type`.
    static func token(_ response: HTTPReply) throws(AuthError) -> TokenStep {
        if isUnknownClient(response) { return .unknownClient }
        guard response.status == 200 else { throw ErrorReply.error(for: response) }
        return .granted(TokenGrant(reply: try TokenReply.parse(response, requireTokenType: false)))
    }

    /// `round` with the server's clock from `clockSynchronization`'s success, which is not a
    /// check of the app's and is not reported to it.
    private static func withClock(_ round: ChallengeRound) throws(AuthError) -> ChallengeRound {
        var round = round
        guard let sync = round.successes.removeValue(forKey: MobileFirstPath.clockSynchronization) else { return round }
        guard let milliseconds = sync["serverTimeStamp"]?.numberValue, milliseconds.isFinite, milliseconds > 0, milliseconds < 1e15 else {
            throw .malformedResponse(reason: "clockSynchronization carries no usable serverTimeStamp")
        }
        round.serverTime = Date(timeIntervalSince1970: milliseconds / 1000)
        return round
    }
}
