import Foundation

/// How the MobileFirst runtime checks a client assertion (`client_assertion`, RFC 7523), as the
/// SDKs build it (`WL.JWT`, Android `JWT`): signed RS256 by the key the client registered; the
/// client named by the header's `jwk.kid` (or `kid`) and by `sub`; `iss` the registered
/// application (`<id>$<platform>…`); `iat` and `exp` in milliseconds, at most 10 minutes apart,
/// unexpired; `jti` the grant code and `aud` `az/v1/token` (relative, or an absolute URL ending so)
/// on the token endpoint; and used once.
enum AssertionVerdict {
    case valid(clientID: String)
    /// The named client is not registered: 400 `INVALID_CLIENT_ID`.
    case unknownClient
    /// Refused, for this reason.
    case refused(String)
}

extension DevBackendState {
    /// The `client_assertion_type` of RFC 7523.
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion may last (`exp - iat`); the SDKs' last 60 s.
    static let maxAssertionLifetime: TimeInterval = 600
    /// How far in the future `iat` may be.
    static let assertionClockLeeway: TimeInterval = 5

    /// Checks the assertion of `form`; `code` is the grant code it must name (token requests).
    func verifyAssertion(_ form: FormBody, code: String?) -> AssertionVerdict {
        guard form["client_assertion_type"] == Self.assertionType else { return .refused("client_assertion_type must be the JWT bearer type") }
        guard let text = form["client_assertion"], let message = SignedMessage(compact: text) else { return .refused("client_assertion is not a JWS") }
        let claims = message.payload
        guard let subject = claims["sub"]?.stringValue else { return .refused("the assertion names no sub") }
        let kid = message.header["jwk"]?["kid"]?.stringValue ?? message.header["kid"]?.stringValue
        guard kid == nil || kid == subject else { return .refused("kid and sub name different clients") }
        guard let key = clients.key(of: subject, of: .mobileFirst) else { return .unknownClient }
        if let offered = message.headerKey, !RSANumbers.same(offered, key) { return .refused("the assertion carries another key than the client registered") }
        guard message.isSigned(by: key) else { return .refused("the assertion's signature does not verify with the client's key") }
        let application = clients.data(of: subject)?["application"]?["id"]?.stringValue ?? ""
        guard let issuer = claims["iss"]?.stringValue, issuer.hasPrefix(application + "$") else { return .refused("iss is not the registered application") }
        guard let issuedAt = claims["iat"]?.numberValue.map({ Date(timeIntervalSince1970: $0 / 1000) }),
              let expiresAt = claims["exp"]?.numberValue.map({ Date(timeIntervalSince1970: $0 / 1000) })
        else { return .refused("iat and exp (milliseconds) are required") }
        let now = self.now
        guard now < expiresAt else { return .refused("the assertion has expired") }
        guard issuedAt <= now.addingTimeInterval(Self.assertionClockLeeway), expiresAt.timeIntervalSince(issuedAt) <= Self.maxAssertionLifetime else {
            return .refused("the assertion is dated in the future or lasts too long")
        }
        if let code {
            guard claims["jti"]?.stringValue == code else { return .refused("jti is not the grant code") }
            guard let audience = claims["aud"]?.stringValue, audience == DevBackendPath.MobileFirst.token || audience.hasSuffix("/api/" + DevBackendPath.MobileFirst.token) else {
                return .refused("aud is not the token endpoint")
            }
        }
        guard usedAssertions.claim(signature: message.signature, until: expiresAt, now: now) else { return .refused("the assertion was used before") }
        return .valid(clientID: subject)
    }
}
