import CofferBase
import Foundation

/// The tokens the development backend issued: random, opaque, with an expiry.
final class TokenRegistry: Sendable {
    private let tokens = Guarded<[String: IssuedToken]>([:])

    /// Issues a new random token for `subject`.
    func issue(
        _ subject: IssuedToken.Subject, origin: IssuedToken.Origin, clientID: String?, expiresAt: Date, scope: Set<String> = [],
        family: String? = nil, idToken: String? = nil
    ) -> String {
        let value = RandomToken.make(bytes: 32)
        tokens.withLock {
            $0[value] = IssuedToken(
                subject: subject, origin: origin, clientID: clientID, expiresAt: expiresAt, scope: scope, family: family, idToken: idToken)
        }
        return value
    }

    /// Revokes every token issued to `clientID` (an MCA logout). Returns how many were revoked.
    @discardableResult
    func revokeAll(of clientID: String) -> Int {
        revokeAll { $0.clientID == clientID }
    }

    /// The token, if it was issued, is not revoked and has not expired at `now`.
    func valid(_ value: String, at now: Date) -> IssuedToken? {
        tokens.withLock { tokens in
            guard let token = tokens[value], !token.revoked, now < token.expiresAt else { return nil }
            return token
        }
    }

    /// Revokes every token issued to `clientID` whose scope holds `element` (a security-check
    /// logout). Returns how many were revoked.
    @discardableResult
    func revokeAll(of clientID: String, scopeContaining element: String) -> Int {
        revokeAll { $0.clientID == clientID && $0.scope.contains(element) }
    }

    /// Revokes the token if `clientID` may (it was issued to that client, or to no client).
    /// Returns whether a token was revoked.
    @discardableResult
    func revoke(_ value: String, by clientID: String) -> Bool {
        tokens.withLock { tokens in
            guard let token = tokens[value], token.clientID == nil || token.clientID == clientID else { return false }
            tokens[value]?.revoked = true
            return true
        }
    }

    /// Revokes every token of a refresh-token family. Returns how many were revoked.
    @discardableResult
    func revokeFamily(_ family: String) -> Int {
        revokeAll { $0.family == family }
    }

    /// Revokes every token not yet revoked that `matches`. Returns how many were revoked.
    private func revokeAll(where matches: (IssuedToken) -> Bool) -> Int {
        tokens.withLock { tokens in
            let matching = tokens.filter { !$0.value.revoked && matches($0.value) }.keys
            for value in matching { tokens[value]?.revoked = true }
            return matching.count
        }
    }
}
