import Foundation

/// The paths of a MobileFirst 8 runtime, below `{server}/{runtime}/` (docs/protocol.md section 8).
package enum MobileFirstPath {
    package static let registration = "api/registration/v1/self"
    package static let preauthorize = "api/preauth/v1/preauthorize"
    package static let logout = "api/preauth/v1/logout"
    package static let authorization = "api/az/v1/authorization"
    package static let token = "api/az/v1/token"
    /// The `WWW-Authenticate` scheme of a preauthorize reply that carries challenges.
    package static let challengeScheme = "MFP-Challenge"
}

/// MobileFirst 8: register, preauthorize with the answers, then an authorization code and a
/// token for the scope; resources ask for a token with `WWW-Authenticate: Bearer scope="…"`.
struct MobileFirstWire: ChallengeWire {
    let server: ChallengeServer
    /// `{server}/{runtime}`.
    let runtimeURL: URL

    private func url(_ path: String) -> URL { runtimeURL.appendingPathComponent(path) }
    var registrationURL: URL { url(MobileFirstPath.registration) }
    var tokenURL: URL { url(MobileFirstPath.token) }

    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound {
        var body: [String: JSONValue] = ["client_id": .string(client.clientID), "scope": .string(scope.text)]
        if !answers.isEmpty { body["challengeResponse"] = .object(answers) }
        let preauthorized = try ChallengeRound.parse(try await transport.send(BackendRequest.json(url(MobileFirstPath.preauthorize), body)))
        guard wantsCode, case .granted = preauthorized.outcome else { return preauthorized }
        var round = try await AuthorizationCode.request(
            at: url(MobileFirstPath.authorization), client: client, scope: scope, transport: transport)
        round.successes.merge(preauthorized.successes) { fromAuthorization, _ in fromAuthorization }
        return round
    }

    func logout(check: String, client: ClientRegistration, transport: HTTPTransport) async throws(AuthError) -> Bool {
        let request = BackendRequest.json(
            url(MobileFirstPath.logout), ["client_id": .string(client.clientID), "security_check": .string(check)])
        let response = try await transport.send(request)
        switch response.status {
        case 200..<300: return true
        case 400 where (try? JSONReply.object(response))?["error"]?.stringValue == "invalid_client":
            return true  // the server no longer knows the client: nothing is logged in there
        case 400, 401, 403: throw TokenEndpointReply.refusal(response)
        default: throw .serverError(status: response.status)
        }
    }

    /// A token depends on the checks its scope names.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool {
        scope.elements.contains(check)
    }

    /// 401 with `Bearer … scope="…"`, or 403 with `Bearer error="insufficient_scope", scope="…"`.
    func requiredScope(_ response: HTTPResponse) -> TokenScope? {
        guard response.status == 401 || response.status == 403 else { return nil }
        for challenge in BearerChallenge.all(in: response) {
            guard let scope = challenge.parameters["scope"] else { continue }
            if response.status == 403, challenge.parameters["error"] != "insufficient_scope" { continue }
            return TokenScope(scope)
        }
        return nil
    }
}
