/// A bad reply the development backend can give instead of a good one, for tests of the
/// client's error handling. Faults travel over real sockets; nothing is mocked.
public enum Fault: Sendable, Hashable {
    /// Replies with this status and a small JSON body.
    case status(Int)
    /// Replies 200 with this body and content type (`nil`: no `Content-Type`).
    case body(String, contentType: String?)
    /// Replies with this status, body and content type (`nil`: no `Content-Type`): an empty
    /// 400 or an HTML error page, as some real providers refuse a dead session.
    case reply(status: Int, body: String, contentType: String?)
    /// Replies 200 with a JSON-typed body of this many bytes: with `Content-Length`, or
    /// chunked so the client only finds out while reading.
    case oversizedBody(bytes: Int, chunked: Bool)
    /// Waits this long, then answers normally: a slow but good reply.
    case delay(Duration)
    /// Answers normally, then holds the reply back this long: the request has taken effect (a
    /// refresh token rotated, say) before the client hears of it.
    case delayReply(Duration)
    /// Never replies (until the backend stops, or ``DevBackend/Configuration/maxHang``).
    case hang
    /// Sends the head and `prefix` of the body, then stalls like ``hang``.
    case stallBody(prefix: String)
    /// Announces a longer body, sends `prefix`, then closes the connection.
    case cutConnection(prefix: String)
    /// Replies 409 with `MFP-Conflict: true`, as a MobileFirst server answers a request that
    /// conflicts with one in progress; the client sends the same request again.
    case conflict
}

/// The endpoints a ``Fault`` can be armed on.
public enum FaultEndpoint: Sendable, Hashable, CaseIterable {
    /// The OAuth token endpoint (every grant).
    case token
    /// OMC's SSO exchange.
    case exchange
    /// The HTTP Basic check.
    case basicCheck
    /// The RFC 7009 revocation endpoint.
    case revocation
    /// `/protected`, `/anonymous`, and the MobileFirst and MCA resources.
    case resource
    /// The MobileFirst and MCA endpoints: registration, preauthorize, authorization, token and logout.
    case challenges
    /// The OpenID provider's metadata: discovery and RFC 8414 documents.
    case openIDDiscovery
    /// The OpenID provider's JWKS.
    case jwks
    /// The OpenID authorization endpoint (GET and POST).
    case openIDAuthorization
    /// RFC 8628's device authorization endpoint.
    case deviceAuthorization
    /// The UserInfo endpoint.
    case userinfo
}
