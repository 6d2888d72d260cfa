import CofferAuth
import Foundation

/// The JSON reply parsers, each fed a whole reply (``ReplyInput``).
extension FuzzTarget {
    /// A token endpoint's reply (RFC 6749 §5.1 and §5.2).
    static let tokenReply = FuzzTarget(name: "token-reply") { bytes in
        let reply = try? TokenEndpointReply.token(from: ReplyInput.response(bytes), requireTokenType: true)
        _ = reply?.accessToken(now: Date(timeIntervalSince1970: 0), defaultLifetime: 3600)
    }

    /// Oracle Mobile Hub's SSO exchange reply, where `token_type` may be missing.
    static let ssoReply = FuzzTarget(name: "sso-reply") { bytes in
        let reply = try? TokenEndpointReply.token(from: ReplyInput.response(bytes), requireTokenType: false)
        _ = reply?.accessToken(now: Date(timeIntervalSince1970: 0), defaultLifetime: 3600)
    }

    /// A preauthorize or authorization reply, read as MobileFirst's and as Mobile Client
    /// Access's: challenges, successes, failures or a redirect (with `wl_result`); then the
    /// reasons a terminal would show from each payload.
    static let challengeRound = FuzzTarget(name: "challenge-round") { bytes in
        let response = ReplyInput.response(bytes)
        for round in [try? MobileFirstReply.round(response), try? ClientAccessReply.round(response)] {
            guard let round else { continue }
            var payloads = Array(round.successes.values)
            switch round.outcome {
            case .challenges(let challenges): payloads += challenges.values
            case .failures(let failures): payloads += failures.values
            case .granted, .unknownClient: break
            }
            for payload in payloads {
                if let reason = ChallengeText.reason(in: payload) {
                    precondition(!reason.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a reason kept a control character")
                }
            }
        }
    }

    /// A client registration reply: MobileFirst's `Location`, Mobile Client Access's
    /// `{"certificate", "clientId"}` (possibly secure JSON).
    static let registrationReply = FuzzTarget(name: "registration-reply") { bytes in
        let response = ReplyInput.response(bytes)
        _ = try? MobileFirstReply.registeredClientID(response)
        _ = try? ClientAccessReply.registration(response)
    }
}
