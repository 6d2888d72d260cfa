import AsyncHTTPClient
import Foundation

/// MobileFirst 8 (docs/protocol.md section 8), as the web SDK speaks it: register a key, then
/// preauthorize with the answers, then an authorization code and a token for the scope, the
/// token and logout requests signed with the client's key; resources ask for a token with
/// `WWW-Authenticate: Bearer`, and a 409 `MFP-Conflict` is sent again.
struct MobileFirstWire: ChallengeWire {
    let server: ChallengeServer
    /// `{server}/{runtime}/api`.
    let apiURL: URL

    var logsOutPerCheck: Bool { true }

    func url(_ path: String) -> URL { apiURL.appendingPathComponent(path) }

    /// The web SDK's `redirect_uri`: `{api}/az/v1/authorization/redirect/{client id}`. Coffer reads
    /// the code from the redirect and loads nothing from it.
    func redirectURI(for client: ClientRegistration) -> String {
        url(MobileFirstPath.redirect).absoluteString + "/" + FormEncoding.escape(client.clientID)
    }

    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound {
        var body: [String: JSONValue] = ["client_id": .string(client.clientID), "scope": .string(scope.text)]
        if !answers.isEmpty { body["challengeResponse"] = .object(answers) }
        let preauthorized = try MobileFirstReply.round(try await send(request(.post, MobileFirstPath.preauthorize, json: body), transport: transport))
        guard wantsCode, case .granted = preauthorized.outcome else { return preauthorized }
        let query = [
            ("response_type", "code"), ("client_id", client.clientID), ("scope", scope.text), ("redirect_uri", redirectURI(for: client)),
        ]
        var round = try MobileFirstReply.round(try await send(try request(.get, MobileFirstPath.authorization, query: query), transport: transport))
        round.successes.merge(preauthorized.successes) { fromAuthorization, _ in fromAuthorization }
        round.serverTime = round.serverTime ?? preauthorized.serverTime
        return round
    }

    /// `POST az/v1/token` with the code and a client assertion whose `jti` is the code and whose
    /// `aud` is `az/v1/token`, as the web SDK's `paramsForTokenRequest` builds them.
    func token(code: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError) -> TokenStep {
        let assertion = try ClientAssertion.make(
            for: client, applicationID: server.applicationID, at: now, jti: code, audience: MobileFirstPath.token)
        let form = [("code", code), ("grant_type", "authorization_code"), ("redirect_uri", redirectURI(for: client))]
            + ClientAssertion.formPairs(assertion)
        return try MobileFirstReply.token(try await send(request(.post, MobileFirstPath.token, form: form), transport: transport))
    }

    /// `POST preauth/v1/logout` with `security_check` and a client assertion. A server that no
    /// longer knows the client has nothing logged in.
    func logout(check: String, client: ClientRegistration, transport: HTTPTransport, at now: Date) async throws(AuthError) {
        let assertion = try ClientAssertion.make(for: client, applicationID: server.applicationID, at: now)
        let response = try await send(
            request(.post, MobileFirstPath.logout, form: [("security_check", check)] + ClientAssertion.formPairs(assertion)), transport: transport)
        guard !MobileFirstReply.isUnknownClient(response) else { return }
        guard response.isSuccess else { throw ErrorReply.error(for: response) }
    }

    /// A token depends on the checks its scope names.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool {
        scope.elements.contains(check)
    }

    /// What a resource's 401 or 403 asks for, as the SDKs read it: 403 `Bearer
    /// error="insufficient_scope", scope="…"` names the scope; a 401 `Bearer` names one in
    /// `scope`, or else (bare, or `error="invalid_token"`) means the scope asked for before, or
    /// the default scope. `RegisteredClient` is dropped: every token of a registered client has it.
    func requiredScope(_ response: HTTPReply, hint: TokenScope?) -> TokenScope? {
        guard response.status == 401 || response.status == 403, let challenge = BearerChallenge.all(in: response).first else { return nil }
        if response.status == 403 {
            guard challenge.parameters["error"] == "insufficient_scope", let scope = challenge.parameters["scope"] else { return nil }
            return Self.resourceScope(scope)
        }
        return challenge.parameters["scope"].map(Self.resourceScope) ?? hint ?? TokenScope(nil)
    }

    func sendResource(_ request: HTTPClientRequest, transport: HTTPTransport) async throws(AuthError) -> HTTPReply {
        try await send(request, transport: transport)
    }

    /// A scope a resource named, without `RegisteredClient`.
    static func resourceScope(_ text: String) -> TokenScope {
        TokenScope(TokenScope(text).elements.filter { $0 != MobileFirstPath.registeredClientScope }.joined(separator: " "))
    }

    // MARK: Requests

    /// Sends `request`, and sends it again while the server answers 409 `MFP-Conflict`, at most
    /// 7 times (the SDKs' `MAX_CONFLICT_ATTEMPTS`); then the last reply is the answer.
    func send(_ request: HTTPClientRequest, transport: HTTPTransport) async throws(AuthError) -> HTTPReply {
        var response = try await transport.send(request)
        var retries = 0
        while MobileFirstReply.isConflict(response), retries < MobileFirstPath.maxConflictRetries {
            retries += 1
            response = try await transport.send(request)
        }
        return response
    }

    /// A request to the API endpoint `path`, with the SDKs' `X-Requested-With: XMLHttpRequest`.
    func request(_ method: HTTPMethodName, _ path: String, json: [String: JSONValue]) -> HTTPClientRequest {
        var request = BackendRequest.json(url(path), json, method: method)
        request.headers.add(name: HeaderName.requestedWith, value: "XMLHttpRequest")
        return request
    }

    /// A form-encoded `POST` to the API endpoint `path`.
    func request(_ method: HTTPMethodName, _ path: String, form: [(String, String)]) -> HTTPClientRequest {
        var request = BackendRequest.form(url(path), form, backendID: nil, authorization: nil)
        request.headers.add(name: HeaderName.requestedWith, value: "XMLHttpRequest")
        return request
    }

    /// A `GET` of the API endpoint `path` with `query`.
    func request(_ method: HTTPMethodName, _ path: String, query: [(String, String)]) throws(AuthError) -> HTTPClientRequest {
        guard let target = URL(string: url(path).absoluteString + "?" + FormEncoding.encode(query)) else {
            throw .invalidRequest(reason: "the MobileFirst URL cannot take a query")
        }
        var request = BackendRequest.make(method, target, backendID: nil)
        request.headers.add(name: HeaderName.requestedWith, value: "XMLHttpRequest")
        return request
    }
}
