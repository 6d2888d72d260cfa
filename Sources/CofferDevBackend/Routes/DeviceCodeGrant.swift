import Hummingbird

/// RFC 8628 §3.4's grant type.
enum DeviceCodeGrant {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
}

extension DevBackendState {
    /// RFC 8628 §3.4–3.5 at the token endpoint: `authorization_pending` until the user decides,
    /// `slow_down` (and 5 s more interval) for a poll sooner than the interval after the previous
    /// one, `access_denied`, `expired_token` once the code's lifetime has passed by the injected
    /// clock, then the tokens once; a spent, unknown or other client's code gets `invalid_grant`.
    func deviceCodeGrant(_ form: FormBody, clientID: String) async -> Response {
        statistics.count(\.devicePolls)
        guard let deviceCode = form["device_code"] else { return Reply.oauthError("invalid_request", "device_code is missing") }
        switch openIDFaults.take(.devicePoll) {
        case .deviceSlowDown?: return Reply.oauthError("slow_down", "poll less often (injected)")
        case .deviceExpiredToken?: return Reply.oauthError("expired_token", "the device code has expired (injected)")
        default: break
        }
        let now = self.now
        switch deviceGrants.poll(deviceCode, clientID: clientID, at: now) {
        case .pending: return Reply.oauthError("authorization_pending", "the user has not decided yet")
        case .slowDown: return Reply.oauthError("slow_down", "poll less often")
        case .expired: return Reply.oauthError("expired_token", "the device code has expired")
        case .denied: return Reply.oauthError("access_denied", "the user denied the request")
        case .invalid: return Reply.oauthError("invalid_grant", "the device code is unknown, spent or another client's")
        case .approved(let grant, let user, let authTime):
            let started = refreshTokens.start(
                clientID: clientID, subject: .user(user), origin: .openID, scope: grant.scope, authTime: authTime,
                expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime))
            return await openIDTokenReply(
                user: user, clientID: clientID, scope: grant.scope, familyID: started.familyID, refreshToken: started.token, nonce: nil,
                authTime: authTime)
        }
    }
}
