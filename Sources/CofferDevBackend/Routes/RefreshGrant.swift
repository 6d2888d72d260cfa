import Hummingbird

extension DevBackendState {
    /// RFC 6749 §6 at the token endpoint: rotates the refresh token (the reply carries a new
    /// one and the old one stops working). Presenting a token that was already rotated away
    /// revokes its whole family, access tokens included (RFC 9700 §4.14.2). `scope` may narrow
    /// the family's scope for this access token.
    func refreshGrant(_ form: FormBody, clientID: String) async -> Response {
        statistics.count(\.refreshRequests)
        guard let token = form["refresh_token"] else { return Reply.oauthError("invalid_request", "refresh_token is missing") }
        if openIDFaults.take(.refresh) != nil { return Reply.oauthError("invalid_grant", "the refresh token is not valid (injected)") }
        let requested = form["scope"].map(ScopeList.parse)
        if let requested, let granted = refreshTokens.family(of: token)?.scope, !Set(requested).isSubset(of: granted) {
            return Reply.oauthError("invalid_scope", "the scope is wider than the one granted")
        }
        let now = self.now
        switch refreshTokens.rotate(token, clientID: clientID, now: now, expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime)) {
        case .invalid:
            return Reply.oauthError("invalid_grant", "the refresh token is unknown, expired, revoked or another client's")
        case .reused(let familyID):
            tokens.revokeFamily(familyID)
            statistics.count(\.refreshReuses)
            return Reply.oauthError("invalid_grant", "the refresh token was used before; every token of its login is revoked")
        case .rotated(let family, let next):
            guard family.origin == .openID, case .user(let user) = family.subject else {
                return issue(
                    family.subject, origin: family.origin, clientID: clientID, lifetime: configuration.refreshedTokenLifetime, family: family.id,
                    extra: ["refresh_token": .string(next)])
            }
            return await openIDTokenReply(
                user: user, clientID: clientID, scope: requested ?? family.scope, familyID: family.id, refreshToken: next, nonce: nil,
                authTime: family.authTime, lifetime: configuration.refreshedTokenLifetime)
        }
    }
}
