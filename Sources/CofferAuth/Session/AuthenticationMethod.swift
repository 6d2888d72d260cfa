/// How the current session was established.
public enum AuthenticationMethod: String, Sendable, Hashable, Codable {
    /// HTTP Basic with the user's name and password.
    case httpBasic
    /// The OAuth 2.0 password grant.
    case oauth
    /// An SSO token exchange.
    case ssoExchange
    /// Anonymous access: the client-credentials grant, or the anonymous key over HTTP Basic.
    case anonymous
}
