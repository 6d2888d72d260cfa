import Foundation
import Hummingbird

/// JSON replies, and RFC 6749 §5.2 error replies.
enum Reply {
    /// A JSON reply with `Cache-Control: no-store` (RFC 6749 §5.1).
    static func json(_ object: [String: JSON], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        jsonTyped(JSON.object(object).text, status: status, headers: headers)
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

    /// 401 (or 403) with `WWW-Authenticate: Bearer k="v", …` (bare `Bearer` without
    /// parameters), for the MobileFirst and MCA resources.
    static func bearer(_ parameters: KeyValuePairs<String, String>, status: HTTPResponse.Status = .unauthorized) -> Response {
        let challenge = (["Bearer"] + [parameters.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ")].filter { !$0.isEmpty }).joined(separator: " ")
        return json(["error": status == .forbidden ? "forbidden" : "unauthorized"], status: status, headers: [.wwwAuthenticate: challenge])
    }

    /// 400 `{"errorCode": "INVALID_CLIENT_ID"}`: the MobileFirst runtime (or the MCA server) does
    /// not know the client; the SDKs register again (`isUnknownClientError`).
    static func unknownClient() -> Response {
        mobileFirstError("INVALID_CLIENT_ID", "Unknown client; register again.", status: .badRequest)
    }

    /// A MobileFirst error body, `{"errorCode", "errorMsg"}` (the SDKs' `JSON_ERROR_KEY`, `errorMsg`).
    static func mobileFirstError(_ code: String, _ message: String, status: HTTPResponse.Status) -> Response {
        json(["errorCode": .string(code), "errorMsg": .string(message)], status: status)
    }

    /// A refused signed request: 401 `invalid_client` (RFC 7523 §3.2), with why, and no challenge.
    static func refusedSignature(_ reason: String) -> Response {
        json(["error": "invalid_client", "error_description": .string(reason)], status: .unauthorized)
    }

    /// `object` as MCA's secure JSON: `/*-secure-\n{…}*/`.
    static func secureJSON(_ object: [String: JSON], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        jsonTyped(Data("/*-secure-\n".utf8) + JSON.object(object).text + Data("*/".utf8), status: status, headers: headers)
    }

    /// `body` as `application/json`, not to be stored.
    private static func jsonTyped(_ body: Data, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An Oracle Mobile Hub error body (`type`, `status`, `title`, `detail`, `o:ecid`,
    /// `o:errorCode`, `o:errorPath`), as the platform APIs answer errors.
    static func mobileHubError(status: HTTPResponse.Status, title: String, detail: String, code: String, path: String, headers: HTTPFields = [:]) -> Response {
        json([
            "type": "http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html", "status": .number(Double(status.code)), "title": .string(title),
            "detail": .string(detail), "o:ecid": .string(RandomToken.make(bytes: 12)), "o:errorCode": .string(code), "o:errorPath": .string(path),
        ], status: status, headers: headers)
    }

    /// A successful token reply.
    static func token(_ value: String, lifetime: TimeInterval, advertised: Bool, extra: [String: JSON] = [:]) -> Response {
        var object: [String: JSON] = ["access_token": .string(value), "token_type": "Bearer"]
        if advertised { object["expires_in"] = .number(lifetime.rounded()) }
        object.merge(extra) { _, new in new }
        return json(object)
    }
}
