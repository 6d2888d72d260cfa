import Hummingbird

extension DevBackendState {
    /// RFC 6749 §4.1.3 with RFC 7636 §4.6 at the token endpoint: the code must be unused,
    /// unexpired, this client's, sent with the same `redirect_uri`, and `code_verifier` must hash
    /// to its challenge. A code is spent at its first use; using it again revokes the tokens it
    /// gave (§4.1.2).
    func authorizationCodeGrant(_ form: FormBody, clientID: String) async -> Response {
        statistics.count(\.openIDCodeExchanges)
        guard let code = form["code"] else { return Reply.oauthError("invalid_request", "code is missing") }
        let now = self.now
        switch openIDCodes.redeem(code, clientID: clientID, redirectURI: form["redirect_uri"], verifier: form["code_verifier"], at: now) {
        case .invalid:
            return Reply.oauthError("invalid_grant", "the code is unknown, expired or another client's, or redirect_uri or code_verifier is wrong")
        case .replayed(let family):
            if let family {
                refreshTokens.revokeFamily(family)
                tokens.revokeFamily(family)
            }
            return Reply.oauthError("invalid_grant", "the code was used before; the tokens it gave are revoked")
        case .granted(let grant):
            let started = refreshTokens.start(
                clientID: clientID, subject: .user(grant.user), origin: .openID, scope: grant.scope, authTime: grant.authTime,
                expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime))
            openIDCodes.attach(family: started.familyID, to: code)
            return await openIDTokenReply(
                user: grant.user, clientID: clientID, scope: grant.scope, familyID: started.familyID, refreshToken: started.token,
                nonce: grant.nonce, authTime: grant.authTime)
        }
    }
}
