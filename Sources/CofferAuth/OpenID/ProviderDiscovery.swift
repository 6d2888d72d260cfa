import AsyncHTTPClient
import Foundation

extension OpenIDProvider {
    /// Reads the provider's metadata: OpenID Connect Discovery 1.0
    /// (`{issuer}/.well-known/openid-configuration`), else RFC 8414
    /// (`/.well-known/oauth-authorization-server`). The document must name `issuer` exactly,
    /// or this throws ``AuthError/untrustedResponse(reason:)``.
    public static func discover(
        issuer: URL, httpClient: HTTPClient = Authorization.defaultHTTPClient,
        configuration: OpenIDClient.Configuration = OpenIDClient.Configuration()
    ) async throws(AuthError) -> OpenIDProvider {
        try await ProviderDiscovery.discover(issuer: issuer, transport: configuration.transport(httpClient))
    }
}

/// OpenID Connect Discovery 1.0 §4 and RFC 8414 §3.
enum ProviderDiscovery {
    static func discover(issuer: URL, transport: HTTPTransport) async throws(AuthError) -> OpenIDProvider {
        for url in documentURLs(for: issuer) {
            let response = try await transport.send(BackendRequest.make(.get, url, backendID: nil))
            switch response.status {
            case 200: return try parse(JSONReply.object(response), issuer: issuer)
            case 400, 403, 404, 405, 410: continue
            default: throw .serverError(status: response.status)
            }
        }
        throw .malformedResponse(reason: "the issuer publishes no OpenID Connect or OAuth 2.0 metadata")
    }

    /// Where the metadata may be, in the order tried: OpenID Connect's (the issuer with any
    /// terminating slash removed, then `/.well-known/openid-configuration`), RFC 8414's
    /// (`/.well-known/oauth-authorization-server` between the host and the issuer's path), and
    /// RFC 8414 appended to the issuer as some servers publish it (§5).
    static func documentURLs(for issuer: URL) -> [URL] {
        var base = issuer.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        var urls = [URL(string: base + "/.well-known/openid-configuration")]
        if var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) {
            var path = components.path
            if path.hasSuffix("/") { path.removeLast() }
            components.path = "/.well-known/oauth-authorization-server" + path
            components.query = nil
            urls.append(components.url)
            if !path.isEmpty { urls.append(URL(string: base + "/.well-known/oauth-authorization-server")) }
        }
        return urls.compactMap { $0 }
    }

    static func parse(_ document: [String: JSONValue], issuer: URL) throws(AuthError) -> OpenIDProvider {
        guard let named = document["issuer"]?.stringValue else { throw .malformedResponse(reason: "the metadata has no issuer") }
        guard named == issuer.absoluteString else {
            throw .untrustedResponse(reason: "the metadata names issuer \(named.prefix(200)), not \(issuer.absoluteString)")
        }
        func endpoint(_ name: String) throws(AuthError) -> URL? {
            guard let value = document[name], !value.isNull else { return nil }
            guard let text = value.stringValue, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  ["https", "http"].contains(scheme), url.host != nil
            else { throw .malformedResponse(reason: "\(name) is not an http(s) URL") }
            return url
        }
        guard let tokenEndpoint = try endpoint("token_endpoint") else {
            throw .malformedResponse(reason: "the metadata has no token_endpoint")
        }
        let algorithms = document["id_token_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue) ?? ["RS256"]
        return OpenIDProvider(
            issuer: issuer, authorizationEndpoint: try endpoint("authorization_endpoint"), tokenEndpoint: tokenEndpoint,
            deviceAuthorizationEndpoint: try endpoint("device_authorization_endpoint"),
            revocationEndpoint: try endpoint("revocation_endpoint"), jwksURI: try endpoint("jwks_uri"),
            userinfoEndpoint: try endpoint("userinfo_endpoint"),
            idTokenSigningAlgorithms: algorithms,
            issuerInAuthorizationResponse: document["authorization_response_iss_parameter_supported"]?.boolValue ?? false)
    }
}
