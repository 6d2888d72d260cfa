import Hummingbird

/// RFC 8693's names: its grant type (§2.1) and the token types (§3) the exchange accepts and issues.
enum TokenExchangeGrant {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let jwtTokenType = "urn:ietf:params:oauth:token-type:jwt"
}

extension DevBackendState {
    /// RFC 8693 §2.1 at the token endpoint: the subject token must be one of the accepted
    /// third-party tokens; the reply names the token type it issued (§2.2.1).
    func tokenExchangeGrant(_ form: FormBody, clientID: String) -> Response {
        guard let subjectToken = form["subject_token"], let type = form["subject_token_type"] else {
            return Reply.oauthError("invalid_request", "subject_token and subject_token_type are required")
        }
        guard [TokenExchangeGrant.accessTokenType, TokenExchangeGrant.jwtTokenType].contains(type) else {
            return Reply.oauthError("invalid_request", "unsupported subject_token_type")
        }
        guard let user = configuration.ssoTokens[subjectToken] else {
            return Reply.oauthError("invalid_grant", "the subject token is not valid")
        }
        return issue(.user(user), origin: .sso, clientID: clientID, lifetime: configuration.exchangeTokenLifetime,
                     extra: ["issued_token_type": .string(TokenExchangeGrant.accessTokenType)])
    }
}
