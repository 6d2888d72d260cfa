import Coffer

extension BrokeredToken {
    /// The token as the login clients hand it out.
    var accessToken: AccessToken {
        AccessToken(value: value, type: type, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// `token` as the agent hands it out, with the scope granted and the origins it may go to.
    init(_ token: AccessToken, scope: String?, apiOrigins: [String]) {
        self.init(value: token.value, type: token.type, issuedAt: token.issuedAt, expiresAt: token.expiresAt, scope: scope, apiOrigins: apiOrigins)
    }
}
