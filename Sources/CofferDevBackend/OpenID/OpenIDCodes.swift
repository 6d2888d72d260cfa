import CofferBase
import Foundation

/// The OpenID provider's authorization codes (RFC 6749 §4.1.2, RFC 7636): single use, bound to
/// the client, the redirect URI and the PKCE challenge.
final class OpenIDCodes: Sendable {
    /// What a code grants.
    struct Grant: Sendable {
        let clientID: String
        let redirectURI: String
        /// The S256 challenge (RFC 7636 §4.2).
        let codeChallenge: String
        let nonce: String?
        let scope: [String]
        let user: String
        let authTime: Date
        let expiresAt: Date
    }

    /// What redeeming a code did.
    enum Outcome: Sendable {
        case granted(Grant)
        /// Unknown, expired, another client's or redirect URI's, or the verifier is wrong.
        case invalid
        /// The code was used before; the tokens it gave (this family) must be revoked (§4.1.2).
        case replayed(family: String?)
    }

    private struct Entry {
        let grant: Grant
        var used = false
        var family: String?
    }

    private let codes = Guarded<[String: Entry]>([:])

    /// How long a used code is remembered, to recognise a replay.
    private static let memory: TimeInterval = 3600

    /// Issues a code for `grant`, and forgets the codes that expired long ago.
    func issue(_ grant: Grant, now: Date) -> String {
        let code = RandomToken.make(bytes: 32)
        codes.withLock { codes in
            codes = codes.filter { $0.value.grant.expiresAt.addingTimeInterval(Self.memory) > now }
            codes[code] = Entry(grant: grant)
        }
        return code
    }

    /// Uses up `code`. A code is spent at its first use, good or bad.
    func redeem(_ code: String, clientID: String, redirectURI: String?, verifier: String?, at now: Date) -> Outcome {
        codes.withLock { codes in
            guard var entry = codes[code] else { return .invalid }
            guard !entry.used else { return .replayed(family: entry.family) }
            entry.used = true
            codes[code] = entry
            let grant = entry.grant
            guard grant.clientID == clientID, grant.redirectURI == redirectURI, now < grant.expiresAt,
                  let verifier, PKCEVerifier.matches(verifier: verifier, challenge: grant.codeChallenge)
            else { return .invalid }
            return .granted(grant)
        }
    }

    /// Remembers the refresh-token family a code gave, to revoke it if the code is replayed.
    func attach(family: String, to code: String) {
        codes.withLock { $0[code]?.family = family }
    }
}
