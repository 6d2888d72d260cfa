import Coffer
import Foundation

/// Every error the authorization facade throws.
///
/// Cases carry only non-secret context: status codes, OAuth error codes and fixed reasons.
/// No case ever holds a password, a token or a client secret.
public enum AuthError: Error, Sendable, Hashable {
    /// The backend rejected the user's (or the client's) credentials.
    case invalidCredentials
    /// No one is logged in: authenticate first.
    case notAuthenticated
    /// The session's token has expired and cannot be renewed without the user.
    case tokenExpired
    /// The stored session belongs to another backend or backend version.
    /// Clear it with ``Authorization/clearSSOTokenExchange()`` and authenticate again.
    case backendMismatch
    /// The backend answered with an unexpected HTTP status.
    case serverError(status: Int)
    /// The backend's reply could not be used: not JSON, truncated, missing fields, the wrong
    /// content type, or larger than the limit.
    case malformedResponse(reason: String)
    /// The backend did not answer in time.
    case timeout
    /// The backend could not be reached, or the connection failed.
    case transport(reason: String)

    // Beyond the eight cases of the issue:

    /// An RFC 6749 §5.2 error reply other than a credential failure, such as `invalid_scope`
    /// or `unsupported_grant_type`.
    case oauthError(code: String, status: Int)
    /// The keychain could not be read or written. Nothing was reported as stored.
    case storage(CofferError)
    /// The caller's task was cancelled, or a logout ended the wait.
    case cancelled
    /// The request or configuration cannot be used, for example a request to another origin.
    case invalidRequest(reason: String)
    /// Logout cleared what it could, but these steps failed.
    case logoutIncomplete([LogoutFailure])
    /// The server refused the request with an error body of its own (MobileFirst's `errorCode`
    /// and `errorMsg`, Oracle Mobile Hub's `detail` and `o:ecid`), whose text this carries.
    case refused(ServerRefusal)

    // Challenges (MobileFirst security checks and Mobile Client Access realms):

    /// The security check or realm refused the answers; `payload` is the failure it sent, or
    /// what an ``AuthenticationContext/submitAuthenticationFailure(_:)`` reported.
    case challengeFailed(check: String, payload: JSONValue)
    /// The challenge was cancelled: ``SecurityCheckChallengeHandler/cancel()``.
    case challengeCancelled(check: String)
    /// The security check is blocked after too many wrong answers, for `retryAfter` seconds
    /// when the server says.
    case blocked(check: String, retryAfter: Int?)
    /// A challenge came for a security check or realm that has no registered handler.
    case noHandler(check: String)
    /// The handler did not answer within ``ClientConfiguration/loginTimeout``.
    case challengeTimeout(check: String)
    /// The server kept challenging past ``ClientConfiguration/maxChallengeRounds``.
    case tooManyChallengeRounds(check: String)

    // OpenID Connect and OAuth 2.0 logins:

    /// The session cannot be renewed without the user: the provider refused the refresh token
    /// (`invalid_grant`, or any other 400 or 401 refusal: revoked, expired, ended at the
    /// provider, or reused after rotation), or the session holds none.
    /// The stored session has been cleared; log in again.
    case reauthenticationRequired
    /// The user, or the provider, refused the login (`access_denied`).
    case accessDenied
    /// The provider ended the login with another error code (RFC 6749 §4.1.2.1, RFC 8628 §3.5),
    /// such as `invalid_scope` or `server_error`.
    case authorizationError(code: String)
    /// The device code expired before the user approved it (RFC 8628 `expired_token`).
    case deviceCodeExpired
    /// A reply failed a security check: metadata or an authorization response for another
    /// issuer, or an ID token whose signature, issuer, audience, times or nonce are wrong.
    /// Nothing from it was used or stored.
    case untrustedResponse(reason: String)
}

extension AuthError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidCredentials: "the backend rejected the credentials"
        case .notAuthenticated: "not logged in"
        case .tokenExpired: "the token has expired; log in again"
        case .backendMismatch: "the stored session belongs to another backend or backend version"
        case .serverError(let status): "the backend answered HTTP \(status)"
        case .malformedResponse(let reason): "malformed reply from the backend: \(reason)"
        case .timeout: "the backend did not answer in time"
        case .transport(let reason): "cannot reach the backend: \(reason)"
        case .oauthError(let code, let status): "the token endpoint refused the request: \(code) (HTTP \(status))"
        case .storage(let error): "keychain: \(error)"
        case .cancelled: "cancelled"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .logoutIncomplete(let failures):
            "logout incomplete: " + failures.map(\.description).joined(separator: "; ")
        case .refused(let refusal): "the server refused the request: \(refusal)"
        case .challengeFailed(let check, let payload):
            "the \(check) challenge failed" + (ChallengeText.reason(in: payload).map { ": \($0)" } ?? "")
        case .challengeCancelled(let check): "the \(check) challenge was cancelled"
        case .blocked(let check, let retryAfter): "\(check) is blocked" + (retryAfter.map { " for \($0) s" } ?? "")
        case .noHandler(let check): "no challenge handler is registered for \(check)"
        case .challengeTimeout(let check): "the \(check) challenge was not answered in time"
        case .tooManyChallengeRounds(let check): "\(check) kept challenging; gave up"
        case .reauthenticationRequired: "the session has ended at the provider; log in again"
        case .accessDenied: "the login was refused (access_denied)"
        case .authorizationError(let code): "the provider ended the login: \(code)"
        case .deviceCodeExpired: "the device code expired before the login was approved"
        case .untrustedResponse(let reason): "untrusted reply from the provider: \(reason)"
        }
    }
}

extension AuthError {
    /// Whether this error, thrown by a `refresh_token` grant, means the provider refused the
    /// refresh token, so the session cannot go on: any 400 or 401 except an RFC 6749 error
    /// that blames the request itself (`invalid_request`, `unsupported_grant_type`,
    /// `invalid_scope`). Real providers refuse a dead session with `invalid_grant`, but also
    /// with a bare 400 or 401, an HTML page, or a code of their own. A 5xx, a timeout or a
    /// transport failure is not a refusal: the session stays for the next try.
    var refusesRefreshToken: Bool {
        switch self {
        case .invalidCredentials: true
        case .serverError(let status): status == 400 || status == 401
        case .oauthError(let code, let status): (status == 400 || status == 401) && !TokenEndpointReply.requestErrors.contains(code)
        default: false
        }
    }

    /// Whether the server could not be reached or did not answer in time: a later request to
    /// it right away would wait the same way.
    var isUnreachable: Bool {
        switch self {
        case .transport, .timeout: true
        default: false
        }
    }
}

extension AuthError: LocalizedError {
    public var errorDescription: String? { description }
}
