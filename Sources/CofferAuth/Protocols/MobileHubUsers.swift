import Foundation

/// Oracle Mobile Hub's user endpoints for HTTP Basic (docs/protocol.md section 2), as the Oracle
/// Mobile Cloud SDK uses them (`BasicAuthConfig`'s login and logout URLs, `BasicAuthService`):
/// `GET {base}/mobile/platform/users/login` checks the credentials, `GET …/users/~` reads the
/// current user, and `GET …/users/logout` ends the login at the backend.
enum MobileHubUsers {
    static let loginPath = "mobile/platform/users/login"
    static let currentUserPath = "mobile/platform/users/~"
    static let logoutPath = "mobile/platform/users/logout"

    /// Checks `authorization` (`Basic …`): 2xx means good credentials; 401 and 403 refuse them.
    static func login(_ authorization: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) {
        let response = try await transport.send(
            BackendRequest.make(.get, BackendRequest.url(loginPath, below: backend), backend: backend, authorization: authorization))
        switch response.status {
        case 200..<300: return
        case 401, 403: throw .invalidCredentials
        default: throw ErrorReply.error(for: response)
        }
    }

    /// The user `authorization` stands for.
    static func currentUser(_ authorization: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) -> AuthenticatedUser {
        let response = try await transport.send(
            BackendRequest.make(.get, BackendRequest.url(currentUserPath, below: backend), backend: backend, authorization: authorization))
        guard response.status == 200 else { throw ErrorReply.error(for: response) }
        return try AuthenticatedUser(mobileHubUser: try JSONReply.object(response))
    }

    /// Ends the login of `authorization` at the backend.
    static func logout(_ authorization: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) {
        let response = try await transport.send(
            BackendRequest.make(.get, BackendRequest.url(logoutPath, below: backend), backend: backend, authorization: authorization))
        guard response.isSuccess else { throw ErrorReply.error(for: response) }
    }
}
