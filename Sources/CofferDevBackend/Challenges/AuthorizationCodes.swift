import CofferBase
import Foundation

/// Authorization codes: issued by the authorization endpoints, exchanged once at the token
/// endpoints (RFC 6749 §4.1.2, §4.1.3).
final class AuthorizationCodes: Sendable {
    /// What a code grants.
    struct Grant: Sendable {
        let clientID: String
        let redirectURI: String
        let scope: Set<String>
        /// Whom the token stands for.
        let subject: IssuedToken.Subject
        let origin: IssuedToken.Origin
        /// When the token must expire at the latest.
        let tokenExpiresAt: Date
        let codeExpiresAt: Date
        /// MCA: the `X-WL-Session` the code was issued in; the token request must carry it.
        var session: String? = nil
    }

    private let codes = Guarded<[String: Grant]>([:])

    /// Issues a code for `grant`, and forgets the codes that expired unused by `now`.
    func issue(_ grant: Grant, now: Date) -> String {
        let code = RandomToken.make(bytes: 24)
        codes.withLock { codes in
            codes = codes.filter { $0.value.codeExpiresAt > now }
            codes[code] = grant
        }
        return code
    }

    /// Uses up `code`: its grant, if it was issued to `clientID` for `redirectURI` and has not
    /// expired at `now`. A code is removed at its first use, good or bad.
    func redeem(_ code: String, clientID: String, redirectURI: String?, at now: Date) -> Grant? {
        guard let grant = codes.withLock({ $0.removeValue(forKey: code) }),
              grant.clientID == clientID, grant.redirectURI == redirectURI, now < grant.codeExpiresAt
        else { return nil }
        return grant
    }
}
