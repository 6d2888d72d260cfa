import CofferBase
import Foundation

/// Refresh tokens (RFC 6749 §6), in families: every login starts one, every refresh rotates
/// it (the new token replaces the old), and presenting a token that was already rotated away
/// revokes the whole family (RFC 9700 §4.14.2).
final class RefreshTokens: Sendable {
    /// A login's chain of refresh tokens, and what each refresh grants.
    struct Family: Sendable {
        let id: String
        let clientID: String
        let subject: IssuedToken.Subject
        let origin: IssuedToken.Origin
        /// The scope granted at login, in the order requested.
        let scope: [String]
        /// When the user authenticated (`auth_time`).
        let authTime: Date
        var current: String
        var revoked = false
    }

    /// What presenting a refresh token did.
    enum Outcome: Sendable {
        /// The token was the family's current one: `token` replaces it.
        case rotated(Family, token: String)
        /// The token had been rotated away: the family is now revoked.
        case reused(familyID: String)
        /// Unknown, expired, revoked, or another client's.
        case invalid
    }

    private struct Entry {
        let family: String
        let expiresAt: Date
    }

    private struct Store {
        var families: [String: Family] = [:]
        var tokens: [String: Entry] = [:]
    }

    private let store = Guarded(Store())

    /// Starts a family and returns its id and first token.
    func start(
        clientID: String, subject: IssuedToken.Subject, origin: IssuedToken.Origin, scope: [String], authTime: Date, expiresAt: Date
    ) -> (familyID: String, token: String) {
        let id = RandomToken.make(bytes: 12), token = RandomToken.make(bytes: 32)
        store.withLock { store in
            store.families[id] = Family(
                id: id, clientID: clientID, subject: subject, origin: origin, scope: scope, authTime: authTime, current: token)
            store.tokens[token] = Entry(family: id, expiresAt: expiresAt)
        }
        return (id, token)
    }

    /// Presents `token` for `clientID` at `now`; the new token, if any, expires at `expiresAt`.
    func rotate(_ token: String, clientID: String, now: Date, expiresAt: Date) -> Outcome {
        store.withLock { store in
            guard let entry = store.tokens[token], var family = store.families[entry.family], !family.revoked,
                  family.clientID == clientID
            else { return .invalid }
            guard family.current == token else {
                store.families[family.id]?.revoked = true
                return .reused(familyID: family.id)
            }
            guard now < entry.expiresAt else { return .invalid }
            let next = RandomToken.make(bytes: 32)
            family.current = next
            store.families[family.id] = family
            store.tokens[next] = Entry(family: family.id, expiresAt: expiresAt)
            return .rotated(family, token: next)
        }
    }

    /// Revokes the family of `token` if it was issued to `clientID`; returns the family's id.
    func revoke(_ token: String, by clientID: String) -> String? {
        store.withLock { store in
            guard let entry = store.tokens[token], let family = store.families[entry.family], family.clientID == clientID else { return nil }
            store.families[family.id]?.revoked = true
            return family.id
        }
    }

    /// Revokes a family (a replayed authorization code).
    func revokeFamily(_ id: String) {
        store.withLock { $0.families[id]?.revoked = true }
    }

    /// The family of `token`, if it is one this backend issued.
    func family(of token: String) -> Family? {
        store.withLock { store in store.tokens[token].flatMap { store.families[$0.family] } }
    }

    /// Whether `token` is a refresh token this backend issued.
    func contains(_ token: String) -> Bool {
        store.withLock { $0.tokens[token] != nil }
    }
}
