import Foundation

/// Checks HTTP Basic credentials against the backend before a login succeeds:
/// `GET {base}/mobile/platform/users/me` answers 200 for valid credentials, 401 otherwise.
package enum BasicCheck {
    package static let path = "mobile/platform/users/me"

    static func verify(_ authorization: String, backend: MobileBackend, transport: HTTPTransport) async throws(AuthError) {
        let request = BackendRequest.make(.get, BackendRequest.url(path, below: backend), backend: backend, authorization: authorization)
        let response = try await transport.send(request)
        switch response.status {
        case 200..<300: return
        case 401, 403: throw .invalidCredentials
        default: throw .serverError(status: response.status)
        }
    }
}
