/// How a reply from a token endpoint (or OMC's exchange endpoint) becomes a token or a typed
/// error: RFC 6749 §5.1 success, §5.2 error replies, and anything else.
package enum TokenEndpointReply {
    /// The RFC 6749 error codes that mean "these credentials are wrong".
    static let credentialErrors: Set<String> = ["invalid_grant", "invalid_client", "unauthorized_client"]

    /// The RFC 6749 §5.2 error codes that blame the request rather than the grant it carries:
    /// a refresh refused with one of these leaves the refresh token as good as it was.
    static let requestErrors: Set<String> = ["invalid_request", "unsupported_grant_type", "invalid_scope"]

    package static func token(from response: HTTPReply, requireTokenType: Bool) throws(AuthError) -> TokenReply {
        switch response.status {
        case 200: return try TokenReply.parse(response, requireTokenType: requireTokenType)
        case 400, 401, 403: throw refusal(response)
        default: throw .serverError(status: response.status)
        }
    }

    /// The RFC 6749 §5.2 `error` code of a reply, when it carries one.
    static func errorCode(_ response: HTTPReply) -> String? {
        (try? JSONReply.object(response))?["error"]?.stringValue
    }

    /// The error for a 400, 401 or 403. A 401 always means the credentials (client or user)
    /// were refused; otherwise the RFC 6749 error code decides, when the body carries one.
    package static func refusal(_ response: HTTPReply) -> AuthError {
        if response.status == 401 { return .invalidCredentials }
        guard let object = try? JSONReply.object(response), let code = object["error"]?.stringValue else {
            return .serverError(status: response.status)
        }
        return credentialErrors.contains(code) ? .invalidCredentials : .oauthError(code: String(code.prefix(64)), status: response.status)
    }
}
