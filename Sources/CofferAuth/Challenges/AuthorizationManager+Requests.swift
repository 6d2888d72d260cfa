import Foundation

extension AuthorizationManager {
    /// Sends `request`, getting a token (and answering challenges) when the resource asks for
    /// one, then sending it again; at most three tokens are obtained for one request, so it is
    /// sent at most four times (the MobileFirst web SDK's `maxRequestAttempts`), besides
    /// MobileFirst's 409 `MFP-Conflict` resends. Once the resource refused a token the client
    /// held valid (401), the cache is suspect (the server's clock runs ahead, or it forgot its
    /// tokens): that token is discarded, and the request's next tokens come from the server.
    func perform(_ request: ResourceRequest) async throws(AuthError) -> HTTPReply {
        try checkOrigin(request.url)
        let path = request.url.path
        var token: AccessToken?
        if let scope = scopeHints[path] { token = try await accessToken(for: scope) }
        var obtained = 0
        var cacheRefused = false
        while true {
            let response = try await wire.sendResource(request.httpRequest(token: token), transport: transport)
            guard let scope = wire.requiredScope(response, hint: scopeHints[path]) else { return response }
            if let token, response.status == 401 {
                discard(token)
                cacheRefused = true
            }
            scopeHints[path] = scope
            guard obtained < Self.maxTokensPerRequest else { return response }
            obtained += 1
            token = try await accessToken(for: scope, cached: !cacheRefused)
        }
    }

    /// The most tokens one resource request obtains: a bare 401 asks for the default scope, a
    /// 403 then names the resource's scope, and a refused token is replaced once.
    static let maxTokensPerRequest = 3

    /// Throws unless `url` has the origin (scheme, host and port) of the server's URL.
    private func checkOrigin(_ url: URL) throws(AuthError) {
        guard let target = Origin(url.absoluteString), target == Origin(server.url.absoluteString) else {
            throw .invalidRequest(reason: "\(HTTPTransport.redactedURL(url.absoluteString)) is not on the server's origin")
        }
    }
}
