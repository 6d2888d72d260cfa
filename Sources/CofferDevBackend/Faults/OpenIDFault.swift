/// A protocol-level fault of the OpenID provider, for the client's negative tests: armed with
/// ``OpenIDFaults/arm(_:times:)``, it changes the next reply of its kind and then disarms.
public enum OpenIDFault: Sendable, Hashable, CaseIterable {
    /// The next ID token has expired: `exp` an hour ago (and `iat` two hours ago).
    case idTokenExpired
    /// The next ID token carries the real key id but is signed by another RSA key.
    case idTokenBadSignature
    /// The next ID token is signed by another RSA key with a key id the JWKS does not have.
    case idTokenUnknownKeyID
    /// The next ID token's `aud` is another client.
    case idTokenWrongAudience
    /// The next ID token's `iss` is another issuer (the real one with `-evil` appended).
    case idTokenWrongIssuer
    /// The next ID token's `nonce` is not the login's (it has one even where none was sent).
    case idTokenWrongNonce
    /// The next ID token's `sub` is another user's.
    case idTokenWrongSubject
    /// The next ID token is unsecured: `alg: none` and an empty signature.
    case idTokenUnsigned
    /// The next ID token is `alg: HS256`, MACed with the provider's public key (its SPKI PEM) as
    /// the secret: the algorithm-confusion attack.
    case idTokenHS256WithPublicKey
    /// The next token reply that would carry an ID token carries none.
    case idTokenMissing
    /// The next authorization redirect (success or error) has a wrong RFC 9207 `iss`.
    case redirectWrongIssuer
    /// The next refresh gets `invalid_grant`; the refresh token itself stays valid.
    case refreshInvalidGrant
    /// The next device-code poll gets `slow_down`, whatever the timing.
    case deviceSlowDown
    /// The next device-code poll gets `expired_token`; the device code itself stays valid.
    case deviceExpiredToken

    /// Which reply the fault changes: one fault of each kind can be armed at a time.
    enum Kind: Sendable, Hashable {
        case idToken, redirect, refresh, devicePoll
    }

    var kind: Kind {
        switch self {
        case .idTokenExpired, .idTokenBadSignature, .idTokenUnknownKeyID, .idTokenWrongAudience, .idTokenWrongIssuer,
             .idTokenWrongNonce, .idTokenWrongSubject, .idTokenUnsigned, .idTokenHS256WithPublicKey, .idTokenMissing:
            .idToken
        case .redirectWrongIssuer: .redirect
        case .refreshInvalidGrant: .refresh
        case .deviceSlowDown, .deviceExpiredToken: .devicePoll
        }
    }
}
