import AsyncHTTPClient
import Foundation

extension Authorization {
    /// The headers that authorize a request to the backend: `Authorization` (Basic or Bearer)
    /// and `Oracle-Mobile-Backend-ID`. An expired token is renewed first when the session keeps
    /// its credentials; concurrent callers share one token request.
    public func authorizationHeaders() async throws(AuthError) -> AuthorizationHeaders {
        AuthorizationHeaders(
            authorization: try await authorizationValue(), backendID: backend.backendID,
            applicationKey: backend.applicationKey, deviceID: backend.deviceID)
    }

    /// `request` with the authorization headers set. Only requests to the backend's origin
    /// (scheme, host and port of ``MobileBackend/baseURL``) are authorized, so credentials
    /// never go to another host.
    public func authorize(_ request: HTTPClientRequest) async throws(AuthError) -> HTTPClientRequest {
        try checkOrigin(request.url)
        var authorized = request
        try await authorizationHeaders().apply(to: &authorized)
        return authorized
    }

    /// Sends `request` authorized and reads the whole reply (up to the size limit, within the
    /// deadline). When the backend refuses a token that renews by itself, the token is renewed
    /// and the request sent once more.
    public func send(_ request: HTTPClientRequest) async throws(AuthError) -> HTTPReply {
        let authorized = try await authorize(request)
        let response = try await transport.send(authorized)
        guard response.status == 401, let used = authorized.headers.first(name: HeaderName.authorization),
              used.hasPrefix("Bearer "), broker != nil || status.isRenewable
        else { return response }
        discardRefusedToken(used)
        return try await transport.send(try await authorize(request))
    }

    /// Sends `request` as ``send(_:)-(HTTPClientRequest)`` does.
    public func send(_ request: ResourceRequest) async throws(AuthError) -> HTTPReply {
        try await send(request.httpRequest(token: nil))
    }

    /// A valid access token of an OAuth or SSO-exchange session (renewed first when it has
    /// expired and the session can renew it), or of anonymous OAuth access. An HTTP Basic
    /// session has none: ``AuthError/invalidRequest(reason:)``.
    public func accessToken() async throws(AuthError) -> AccessToken {
        if let broker, !state.isAnonymous { return try await brokeredAccessToken(from: broker) }
        _ = try await authorizationValue()
        switch state {
        case .session(let session):
            guard let token = session.token else { throw .invalidRequest(reason: "an HTTP Basic session has no access token") }
            return token
        case .anonymous(let token?):
            return token
        case .anonymous(nil):
            throw .invalidRequest(reason: "anonymous HTTP Basic access has no access token")
        case .unloaded, .signedOut:
            throw .notAuthenticated
        }
    }

    /// An authorized `GET` of `url`.
    public func get(_ url: URL) async throws(AuthError) -> HTTPReply {
        try await send(HTTPClientRequest(url: url.absoluteString))
    }

    /// The logged-in user, as the backend describes them (`GET {base}/mobile/platform/users/~`,
    /// with the session's credentials). Errors with the backend's `detail` are
    /// ``AuthError/refused(_:)``.
    public func currentUser() async throws(AuthError) -> AuthenticatedUser {
        try await MobileHubUsers.currentUser(try await authorizationValue(), backend: backend, transport: transport)
    }

    /// Throws unless `url` has the backend's scheme, host and port.
    private nonisolated func checkOrigin(_ url: String) throws(AuthError) {
        guard let target = Origin(url), target == Origin(backend.baseURL.absoluteString) else {
            throw .invalidRequest(reason: "\(HTTPTransport.redactedURL(url)) is not on the backend's origin")
        }
    }
}

/// A URL's scheme, host and port (RFC 6454), with default ports filled in.
struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        guard let port = components.port ?? ["http": 80, "https": 443][scheme] else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
