import Foundation

/// MobileFirst's client assertion (the SDKs' `WL.JWT`, RFC 7523's JWT bearer client
/// authentication): a JWT signed with the client's key that the token, logout and heartbeat
/// requests carry as `client_assertion`. Its times are milliseconds since 1970, as the SDKs
/// write them, and it lasts 60 s.
enum ClientAssertion {
    /// `exp - iat`, in milliseconds (the SDKs' `DEFAULT_JWT_EXPIRATION`).
    static let lifetimeMilliseconds = 60_000.0

    /// The header: RS256 and the client's public key as a JWK naming the client (`kid`).
    static func header(key: ClientKey, clientID: String?) throws(AuthError) -> JSONValue {
        let (modulus, exponent) = try key.signedPrimitives()
        var jwk: [String: JSONValue] = [
            "kty": "RSA", "n": .string(Base64URL.encodePadded(modulus)), "e": .string(Base64URL.encodePadded(exponent)),
        ]
        if let clientID { jwk["kid"] = .string(clientID) }
        return ["alg": "RS256", "jwk": .object(jwk)]
    }

    /// A signed assertion for `client` at `now`: `iss` the application (`<id>$web`), `sub` the
    /// client id, `iat` and `exp` in ms, and `jti`/`aud` when given (the token request's are the
    /// grant code and `az/v1/token`).
    static func make(
        for client: ClientRegistration, applicationID: String, at now: Date, jti: String? = nil, audience: String? = nil
    ) throws(AuthError) -> String {
        let issuedAt = (now.timeIntervalSince1970 * 1000).rounded()
        var claims: [String: JSONValue] = [
            "iss": .string("\(applicationID)$\(MobileFirstPath.clientPlatform)"), "sub": .string(client.clientID),
            "iat": .number(issuedAt), "exp": .number(issuedAt + lifetimeMilliseconds),
        ]
        if let jti { claims["jti"] = .string(jti) }
        if let audience { claims["aud"] = .string(audience) }
        let header = try header(key: client.key, clientID: client.clientID)
        return try CompactJWS.sign(header: header, payload: .object(claims), with: client.key).compact
    }

    /// The form fields that carry the assertion.
    static func formPairs(_ assertion: String) -> [(String, String)] {
        [("client_assertion", assertion), ("client_assertion_type", MobileFirstPath.assertionType)]
    }
}
