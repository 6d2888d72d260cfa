import AsyncHTTPClient
import Foundation

/// Mobile Client Access (docs/protocol.md section 9), as its client SDKs speak it: register a key
/// with a signed CSR, then ask the authorization endpoint for a code, answering the realms'
/// challenges as `Authorization: Bearer {"<realm>": <answer>}`; the redirect's `wl_result`
/// reports the realms' outcomes; the token request carries the code signed with the client's
/// key. Every request to the authorization server carries this wire's `X-WL-Session`.
struct ClientAccessWire: ChallengeWire {
    let server: ChallengeServer
    /// `{authorization server}/authorization/v1/apps/{tenant id}`.
    let appURL: URL
    /// `X-WL-Session`: one random id per client object (the SDKs make one per app run).
    let sessionID = UUID().uuidString

    var logsOutPerCheck: Bool { false }

    func url(_ path: String) -> URL { appURL.appendingPathComponent(path) }

    /// `GET authorization?response_type=code&client_id=…&redirect_uri=http://localhost`, with the
    /// answers (when there are any) as one compact JSON object after `Bearer `.
    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound {
        let authorization = answers.isEmpty ? nil : "Bearer " + String(decoding: JSONValue.object(answers).compactJSON, as: UTF8.self)
        let query = [("response_type", "code"), ("client_id", client.clientID), ("redirect_uri", ClientAccessPath.redirectURI)]
        return try ClientAccessReply.round(try await transport.send(try get(ClientAccessPath.authorization, query, authorization: authorization)))
    }

    /// `POST token` with the code, and `X-WL-Authenticate`: a JWS of `{"code": <code>}` signed with
    /// the client's key (the SDKs' `createTokenRequestHeaders`).
    func token(code: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError) -> TokenStep {
        let signedCode = try CompactJWS.sign(header: try Self.header(client.key), payload: ["code": .string(code)], with: client.key)
        var request = post(ClientAccessPath.token, [
            ("code", code), ("client_id", client.clientID), ("grant_type", "authorization_code"), ("redirect_uri", ClientAccessPath.redirectURI),
        ])
        request.headers.add(name: HeaderName.clientAccessAuthenticate, value: signedCode.compact)
        return try ClientAccessReply.token(try await transport.send(request))
    }

    /// `GET logout?client_id=…`: ends the client's session at the server (every realm). A server
    /// that no longer knows the client (400) has nothing to end.
    func logout(check: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError) {
        let response = try await transport.send(try get(ClientAccessPath.logout, [("client_id", client.clientID)]))
        guard response.isSuccess || response.status == 400 else { throw ErrorReply.error(for: response) }
    }

    /// MCA tokens have no scope: each depends on every realm.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool {
        true
    }

    /// 401 or 403 whose `WWW-Authenticate` holds `Bearer` and `"imfAuthentication"`, quotes
    /// included, as the SDKs test it (`MCAAuthorizationManager.isAuthorizationRequired`).
    func requiredScope(_ response: HTTPReply, hint: TokenScope?) -> TokenScope? {
        guard response.status == 401 || response.status == 403 else { return nil }
        let realm = "\"\(ClientAccessPath.resourceRealm)\""
        let asks = response.headers.contains {
            ASCIICase.equal($0.name, HeaderName.wwwAuthenticate) && $0.value.contains("Bearer") && $0.value.contains(realm)
        }
        return asks ? TokenScope(nil) : nil
    }

    func sendResource(_ request: HTTPClientRequest, transport: HTTPTransport) async throws(AuthError) -> HTTPReply {
        try await transport.send(request)
    }

    func update(_ client: ClientRegistration, deviceID: String, transport: HTTPTransport) async throws(AuthError) -> RegistrationUpdate {
        .current
    }

    // MARK: Requests

    /// A `GET` of `path` with `query`, carrying the session id.
    func get(_ path: String, _ query: [(String, String)], authorization: String? = nil) throws(AuthError) -> HTTPClientRequest {
        guard let target = URL(string: url(path).absoluteString + "?" + FormEncoding.encode(query)) else {
            throw .invalidRequest(reason: "the authorization server's URL cannot take a query")
        }
        var request = BackendRequest.make(.get, target, backendID: nil, authorization: authorization)
        request.headers.add(name: HeaderName.clientAccessSession, value: sessionID)
        return request
    }

    /// A form-encoded `POST` to `path`, carrying the session id.
    func post(_ path: String, _ form: [(String, String)]) -> HTTPClientRequest {
        var request = BackendRequest.form(url(path), form, backendID: nil, authorization: nil)
        request.headers.add(name: HeaderName.clientAccessSession, value: sessionID)
        return request
    }

    /// The JWS header of every signed message: RS256 and the public key as `jpk`, its modulus and
    /// exponent as the Android SDK writes them (`DefaultJSONSigner`: `BigInteger.toByteArray()`,
    /// base64url with padding).
    static func header(_ key: ClientKey) throws(AuthError) -> JSONValue {
        let (modulus, exponent) = try key.signedPrimitives()
        return ["alg": "RS256", "jpk": ["alg": "RSA", "mod": .string(Base64URL.encodePadded(modulus)), "exp": .string(Base64URL.encodePadded(exponent))]]
    }
}
