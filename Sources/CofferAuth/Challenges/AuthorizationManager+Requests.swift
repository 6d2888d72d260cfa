import Foundation

extension AuthorizationManager {
    /// Sends `request`, getting a token (and answering challenges) when the resource asks for
    /// one, then sending it again; at most two tokens are obtained for one request.
    func perform(_ request: ResourceRequest) async throws(AuthError) -> HTTPResponse {
        try checkOrigin(request.url)
        let path = request.url.path
        var token: AccessToken?
        if let scope = scopeHints[path] { token = try await accessToken(for: scope) }
        var obtained = 0
        while true {
            let response = try await transport.send(request.httpRequest(token: token))
            guard let scope = wire.requiredScope(response) else { return response }
            if let token, response.status == 401 { discard(token) }
            scopeHints[path] = scope
            guard obtained < 2 else { return response }
            obtained += 1
            token = try await accessToken(for: scope)
        }
    }

    /// Throws unless `url` has the origin (scheme, host and port) of the server's URL.
    private func checkOrigin(_ url: URL) throws(AuthError) {
        guard let target = Origin(url.absoluteString), target == Origin(server.url.absoluteString) else {
            throw .invalidRequest(reason: "\(HTTPTransport.redactedURL(url.absoluteString)) is not on the server's origin")
        }
    }
}
