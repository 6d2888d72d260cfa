import CofferAuth
import Foundation
import Hummingbird

/// JSON replies, and RFC 6749 §5.2 error replies.
enum Reply {
    /// A JSON reply with `Cache-Control: no-store` (RFC 6749 §5.1).
    static func json(_ object: [String: JSONValue], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(JSONValue.object(object))) ?? Data("{}".utf8)
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An RFC 6749 §5.2 error. `invalid_client` gets 401 and a Basic challenge; the rest 400.
    static func oauthError(_ code: String, _ description: String) -> Response {
        if code == "invalid_client" {
            return json(["error": .string(code), "error_description": .string(description)], status: .unauthorized,
                        headers: [.wwwAuthenticate: "Basic realm=\"coffer-dev\""])
        }
        return json(["error": .string(code), "error_description": .string(description)], status: .badRequest)
    }

    /// 401 with the challenge for `scheme` (RFC 6750 §3 for Bearer).
    static func unauthorized(_ scheme: String, error: String? = nil) -> Response {
        var challenge = "\(scheme) realm=\"coffer-dev\""
        if let error { challenge += ", error=\"\(error)\"" }
        return json(["error": "unauthorized"], status: .unauthorized, headers: [.wwwAuthenticate: challenge])
    }

    /// 401 (or 403) with `WWW-Authenticate: Bearer k="v", …`, for the MobileFirst and MCA resources.
    static func bearer(_ parameters: KeyValuePairs<String, String>, status: HTTPResponse.Status = .unauthorized) -> Response {
        let challenge = "Bearer " + parameters.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ")
        return json(["error": status == .forbidden ? "forbidden" : "unauthorized"], status: status, headers: [.wwwAuthenticate: challenge])
    }

    /// 400 `invalid_client`: the MobileFirst runtime or MCA server does not know the client.
    static func unknownClient() -> Response {
        json(["error": "invalid_client", "error_description": "unknown client; register again"], status: .badRequest)
    }

    /// A successful token reply.
    static func token(_ value: String, lifetime: TimeInterval, advertised: Bool, extra: [String: JSONValue] = [:]) -> Response {
        var object: [String: JSONValue] = ["access_token": .string(value), "token_type": "Bearer"]
        if advertised { object["expires_in"] = .number(lifetime.rounded()) }
        object.merge(extra) { _, new in new }
        return json(object)
    }
}
