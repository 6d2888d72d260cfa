/// The error for a reply that refused a request: the server's own error body (MobileFirst's
/// `errorCode` and `errorMsg`, Oracle Mobile Hub's `detail` and `o:ecid`) as
/// ``AuthError/refused(_:)``; else an RFC 6749 error (``TokenEndpointReply/refusal(_:)``) for
/// 400, 401 and 403; else the bare status.
enum ErrorReply {
    static func error(for response: HTTPReply) -> AuthError {
        if let body = try? JSONReply.object(response), body["error"] == nil, let refusal = ServerRefusal(status: response.status, body: body) {
            return .refused(refusal)
        }
        switch response.status {
        case 400, 401, 403: return TokenEndpointReply.refusal(response)
        default: return .serverError(status: response.status)
        }
    }
}
