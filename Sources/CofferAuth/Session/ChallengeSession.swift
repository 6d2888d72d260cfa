import Foundation

/// What a ``ChallengeClient`` keeps in the keychain, as one item written atomically: its device
/// id, its registration (with its private key), its access tokens by scope, and the last
/// authenticated user. It is bound to the server it came from. `description` redacts the key
/// and the tokens.
struct ChallengeSession: Sendable, Hashable, Codable {
    /// An access token and the scope it was granted for.
    struct ScopedToken: Sendable, Hashable, Codable {
        var scope: TokenScope
        var token: AccessToken
    }

    /// The version of this encoding: 2 since clients register a key (format 1 held a shared
    /// client secret; such an item no longer decodes, so the client registers again).
    var format = 2
    var server: ChallengeServer
    /// The device id sent at registration; it outlives a registration the server forgot.
    var deviceID = UUID().uuidString.lowercased()
    var registration: ClientRegistration?
    var tokens: [ScopedToken] = []
    var user: AuthenticatedUser?

    /// A usable token for `scope`: one granted for it, or for a scope that covers it.
    func token(for scope: TokenScope, at now: Date, leeway: TimeInterval) -> AccessToken? {
        tokens.first { $0.scope == scope && $0.token.isValid(at: now, leeway: leeway) }?.token
            ?? tokens.first { $0.scope.covers(scope) && $0.token.isValid(at: now, leeway: leeway) }?.token
    }

    /// Keeps `token` for `scope`, replacing the earlier one, and drops expired tokens.
    mutating func keep(_ token: AccessToken, for scope: TokenScope, now: Date) {
        tokens.removeAll { $0.scope == scope || $0.token.expiresAt <= now }
        tokens.append(ScopedToken(scope: scope, token: token))
    }
}

extension ChallengeSession: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String {
        "ChallengeSession(server: \(server.storageKey), registration: \(registration.map(\.description) ?? "none"), "
            + "tokens: [\(tokens.map { "\($0.scope): \($0.token)" }.joined(separator: ", "))], user: \(user?.id ?? "none"))"
    }

    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
