/// An OpenID authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core
/// §3.1.2.1), checked in the order that decides where an error goes: a bad client or
/// redirect URI gets a page, never a redirect; anything else wrong goes back to the client.
struct AuthorizationRequest: Sendable {
    let client: OpenIDClientRegistration
    let redirectURI: String
    let state: String?
    let nonce: String?
    let scope: [String]
    let codeChallenge: String
    let prompt: Set<String>
    /// The request's parameters, for the login form to send back.
    let parameters: [(String, String)]

    /// Why a request was refused.
    enum Refusal: Error {
        /// Shown to the user (400): the client or redirect URI cannot be trusted.
        case page(String)
        /// Sent to the client's redirect URI as `error` (§4.1.2.1).
        case redirect(redirectURI: String, state: String?, error: String, description: String)
    }

    /// The parameters the login form carries back.
    static let names = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "prompt",
    ]

    /// Checks `pairs` (the query of a GET, or the form of the login form's POST; other fields are
    /// ignored). A repeated parameter is refused; its first value is the one echoed (`state`).
    static func parse(_ pairs: [(name: String, value: String)], configuration: OpenIDProviderConfiguration) -> Result<Self, Refusal> {
        var values: [String: String] = [:]
        var repeated: Set<String> = []
        for (name, value) in pairs where names.contains(name) {
            if values[name] == nil { values[name] = value } else { repeated.insert(name) }
        }
        guard repeated.isDisjoint(with: ["client_id", "redirect_uri"]) else { return .failure(.page("client_id or redirect_uri is repeated.")) }
        guard let clientID = values["client_id"], let client = configuration.client(clientID) else {
            return .failure(.page("The client is unknown."))
        }
        guard let redirectURI = values["redirect_uri"], client.allows(redirectURI: redirectURI) else {
            return .failure(.page("The redirect URI is not registered for this client."))
        }
        let state = values["state"].flatMap { $0.isEmpty ? nil : $0 }
        func refuse(_ error: String, _ description: String) -> Result<Self, Refusal> {
            .failure(.redirect(redirectURI: redirectURI, state: state, error: error, description: description))
        }
        if let name = repeated.sorted().first { return refuse("invalid_request", "\(name) is repeated") }
        guard let responseType = values["response_type"] else { return refuse("invalid_request", "response_type is missing") }
        guard responseType == "code" else { return refuse("unsupported_response_type", "only response_type=code is supported") }
        guard let challenge = values["code_challenge"] else { return refuse("invalid_request", "code_challenge is required (PKCE)") }
        guard values["code_challenge_method"] == "S256" else { return refuse("invalid_request", "code_challenge_method must be S256") }
        guard PKCEVerifier.isWellFormedChallenge(challenge) else { return refuse("invalid_request", "code_challenge is malformed") }
        let scope = ScopeList.parse(values["scope"] ?? "openid")
        guard !scope.isEmpty, scope.allSatisfy(configuration.scopes.contains) else { return refuse("invalid_scope", "the scope is unknown") }
        let nonce = values["nonce"].flatMap { $0.isEmpty ? nil : $0 }
        return .success(AuthorizationRequest(
            client: client, redirectURI: redirectURI, state: state, nonce: nonce, scope: scope, codeChallenge: challenge,
            prompt: Set((values["prompt"] ?? "").split(separator: " ").map(String.init)),
            parameters: names.compactMap { name in values[name].map { (name, $0) } }))
    }
}
