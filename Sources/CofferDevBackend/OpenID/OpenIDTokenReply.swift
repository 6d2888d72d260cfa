import Foundation
import Hummingbird

extension DevBackendState {
    /// Issues an access token of refresh family `familyID` for `user`, lasting `lifetime`
    /// (default: the configuration's), and replies (RFC 6749 §5.1) with it, `refreshToken`, the
    /// `scope` and, when the scope has `openid`, an ID token.
    func openIDTokenReply(
        user: String, clientID: String, scope: [String], familyID: String, refreshToken: String, nonce: String?, authTime: Date,
        lifetime: TimeInterval? = nil
    ) async -> Response {
        let lifetime = lifetime ?? configuration.tokenLifetime
        let accessToken = tokens.issue(
            .user(user), origin: .openID, clientID: clientID, expiresAt: now.addingTimeInterval(lifetime), scope: Set(scope), family: familyID)
        var extra: [String: JSON] = ["refresh_token": .string(refreshToken), "scope": .string(ScopeList.format(scope))]
        if scope.contains("openid") {
            do {
                let idToken = try await idToken(
                    user: user, clientID: clientID, scope: scope, nonce: nonce, authTime: authTime, accessToken: accessToken)
                if let idToken { extra["id_token"] = .string(idToken) }
            } catch {
                return Reply.json(["error": "server_error", "error_description": "the ID token could not be signed"], status: .internalServerError)
            }
        }
        return Reply.token(accessToken, lifetime: lifetime, advertised: configuration.advertisesLifetime, extra: extra)
    }
}
