import Foundation

/// OpenID Connect Core §5.3: who the access token's user is, for logins that return no ID
/// token (some providers' device flow).
enum UserInfo {
    /// The identity from the UserInfo endpoint, or `nil` when the provider has none.
    static func identity(provider: OpenIDProvider, token: String, transport: HTTPTransport) async throws(AuthError) -> AuthenticatedUser? {
        guard let endpoint = provider.userinfoEndpoint else { return nil }
        let response = try await transport.send(BackendRequest.make(.get, endpoint, backendID: nil, authorization: "Bearer \(token)"))
        guard response.status == 200 else { throw .serverError(status: response.status) }
        let claims = try JSONReply.object(response)
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw .malformedResponse(reason: "the UserInfo reply has no sub")
        }
        return AuthenticatedUser(
            id: subject, name: claims["name"]?.stringValue, preferredUsername: claims["preferred_username"]?.stringValue,
            email: claims["email"]?.stringValue)
    }
}
