import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A request for a protected resource, as `WLResourceRequest` (MobileFirst) and
/// `IMFResourceRequest` (MCA) are; any ``AuthorizationClient`` sends it. Through a
/// ``ChallengeClient``:
///
/// ```swift
/// let reply = try await ResourceRequest(url: server.appendingPathComponent("mfp/balance")).send(using: client)
/// ```
///
/// When the resource asks for a token (MobileFirst: 401 `WWW-Authenticate: Bearer`, bare or
/// naming a scope, then 403 `insufficient_scope` naming the resource's scope; MCA: 401 or 403
/// `Bearer realm="imfAuthentication"`), the client gets one, answering the challenges through
/// the registered handlers, and sends the request again. A token the resource refuses is
/// forgotten and replaced; at most three tokens are obtained, so a request is sent at most four
/// times (MobileFirst also resends after a 409 `MFP-Conflict`, at most 7 times). Any other
/// reply, error statuses included, is returned as it is.
public struct ResourceRequest: Sendable {
    /// The resource. It must be on the origin of the client's ``ChallengeServer/url``:
    /// tokens are sent nowhere else.
    public var url: URL
    /// The method. Default: `GET`.
    public var method: HTTPMethod
    /// Extra header fields. An `Authorization` field is replaced by the token.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// A request for `url`.
    public init(url: URL, method: HTTPMethod = .GET, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// Sends the request through `client`, answering challenges, and reads the whole reply.
    public func send(using client: ChallengeClient) async throws(AuthError) -> HTTPReply {
        try await client.authorizationManager.perform(self)
    }

    /// The HTTP request, with `Authorization: Bearer <token>` (MCA: `Bearer <token> <ID token>`) when given.
    func httpRequest(token: AccessToken?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let token { request.headers.replaceOrAdd(name: HeaderName.authorization, value: token.headerValue) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        return request
    }
}

extension ResourceRequest: CustomStringConvertible {
    /// The method and the URL without its query; never a header or the body.
    public var description: String { "ResourceRequest(\(method.rawValue) \(HTTPTransport.redactedURL(url.absoluteString)))" }
}
