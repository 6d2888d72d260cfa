import Foundation

/// The paths of a Mobile Client Access authorization server, below
/// `{authorization server}/authorization/v1/apps/{tenant id}/` (docs/protocol.md section 9).
package enum ClientAccessPath {
    package static let apps = "authorization/v1/apps"
    package static let registration = "clients/instance"
    package static let authorization = "authorization"
    package static let token = "token"
    /// The realm a protected resource names: `WWW-Authenticate: Bearer realm="imfAuthentication"`.
    package static let resourceRealm = "imfAuthentication"
    /// The `WWW-Authenticate` scheme of an authorization reply that carries challenges.
    package static let challengeScheme = "WL-Composite-Challenge"
}

/// Mobile Client Access: register, then ask the authorization endpoint for a code, sending the
/// answers to the realms' challenges as `Authorization: Bearer {"<realm>": <answer>}`; the
/// redirect carries the code and the realms' successes (`userIdentity`).
struct ClientAccessWire: ChallengeWire {
    let server: ChallengeServer
    /// `{authorization server}/authorization/v1/apps/{tenant id}`.
    let appURL: URL

    private func url(_ path: String) -> URL { appURL.appendingPathComponent(path) }
    var registrationURL: URL { url(ClientAccessPath.registration) }
    var tokenURL: URL { url(ClientAccessPath.token) }

    func round(
        scope: TokenScope, answers: [String: JSONValue], client: ClientRegistration, wantsCode: Bool, transport: HTTPTransport
    ) async throws(AuthError) -> ChallengeRound {
        let authorization = answers.isEmpty ? nil : "Bearer " + String(decoding: JSONValue.object(answers).compactJSON, as: UTF8.self)
        return try await AuthorizationCode.request(
            at: url(ClientAccessPath.authorization), client: client, scope: nil, authorization: authorization, transport: transport)
    }

    func logout(check: String, client: ClientRegistration, transport: HTTPTransport) async throws(AuthError) -> Bool {
        false
    }

    /// MCA tokens have no scope: each depends on every realm.
    func token(of scope: TokenScope, dependsOn check: String) -> Bool {
        true
    }

    /// 401 with `WWW-Authenticate: Bearer realm="imfAuthentication"`.
    func requiredScope(_ response: HTTPResponse) -> TokenScope? {
        guard response.status == 401,
              BearerChallenge.all(in: response).contains(where: { $0.parameters["realm"] == ClientAccessPath.resourceRealm })
        else { return nil }
        return TokenScope(nil)
    }
}
