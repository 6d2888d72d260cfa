import Foundation

/// One authorization request of a browser login (RFC 6749 §4.1, RFC 7636, RFC 8252), and the
/// rules its redirect must follow: the request's `state`, the provider's `iss` (RFC 9207), and
/// at most one of each parameter.
struct AuthorizationRedirect: Sendable {
    let provider: OpenIDProvider
    let clientID: String
    let redirectURI: String
    let scope: String
    let state = Base64URL.random(bytes: 24)
    let nonce = Base64URL.random(bytes: 24)
    let pkce = PKCE()

    /// The URL the browser opens.
    func authorizationURL(endpoint: URL) throws(AuthError) -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest(reason: "the authorization endpoint is not a URL")
        }
        var items = components.queryItems ?? []
        items += [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: PKCE.method),
        ]
        if TokenScope(scope).elements.contains("openid") { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        // Form encoding (RFC 6749 Appendix B), with spaces as %20, which every query parser reads as a space.
        func escape(_ text: String) -> String { FormEncoding.escape(text).replacingOccurrences(of: "+", with: "%20") }
        components.percentEncodedQuery = items.map { "\(escape($0.name))=\(escape($0.value ?? ""))" }.joined(separator: "&")
        guard let url = components.url else { throw .invalidRequest(reason: "the authorization URL cannot be built") }
        return url
    }

    /// Decides on a callback. Without this request's `state`, or with a parameter repeated, it
    /// is not this login's (refused; the listener keeps waiting). With the state, it ends the
    /// login: with its code, or with its error, or as untrusted when `iss` names another
    /// issuer, or is missing from a code response where the provider promised it.
    ///
    /// An error response without `iss` ends the login with its error even then: it carries no
    /// code to misuse (RFC 9207 guards the code exchange), and some providers add `iss` to
    /// successful responses only (django-oauth-toolkit 3.4), so a user who clicks "Cancel"
    /// would otherwise be told the reply is untrusted instead of `accessDenied`.
    func judge(_ items: [URLQueryItem]) -> LoopbackListener.Verdict {
        var parameters: [String: String] = [:]
        for item in items {
            guard parameters[item.name] == nil else { return .refuse(status: .badRequest) }
            parameters[item.name] = item.value ?? ""
        }
        guard parameters["state"] == state else { return .refuse(status: .badRequest) }
        if let issuer = parameters["iss"] {
            guard issuer == provider.issuer.absoluteString else {
                return .accept(.failure(.untrustedResponse(reason: "the authorization response comes from another issuer")))
            }
        } else if provider.issuerInAuthorizationResponse, parameters["error"] == nil {
            return .accept(.failure(.untrustedResponse(reason: "the authorization response names no issuer")))
        }
        if let error = parameters["error"] {
            return .accept(.failure(error == "access_denied" ? .accessDenied : .authorizationError(code: Self.errorCode(error))))
        }
        guard let code = parameters["code"], !code.isEmpty, code.utf8.count <= TokenReply.maxTokenBytes else {
            return .accept(.failure(.malformedResponse(reason: "the authorization response has no code")))
        }
        return .accept(.success(code))
    }

    /// An error code as RFC 6749 allows it (`%x20-21 / %x23-5B / %x5D-7E`), at most 64 characters.
    static func errorCode(_ text: String) -> String {
        let allowed = text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }
        return String(String.UnicodeScalarView(allowed.prefix(64)))
    }
}
