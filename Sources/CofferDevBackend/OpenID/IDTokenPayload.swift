import JWTKit

/// The claims of the provider's ID tokens (OpenID Connect Core §2, §5.1), times in whole
/// seconds since 1970. The provider only signs them; the client verifies.
struct IDTokenPayload: JWTPayload {
    var issuer: String
    var subject: String
    var audience: String
    var expires: Int
    var issuedAt: Int
    var authTime: Int
    var nonce: String?
    /// §3.1.3.6: the left half of the access token's SHA-256, base64url.
    var accessTokenHash: String?
    var preferredUsername: String?
    var name: String?
    var email: String?
    var emailVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", expires = "exp", issuedAt = "iat", authTime = "auth_time", nonce
        case accessTokenHash = "at_hash", preferredUsername = "preferred_username", name, email, emailVerified = "email_verified"
    }

    /// jwt-kit's hook for verifying; the provider never verifies its own tokens.
    func verify(using _: some JWTAlgorithm) async throws {}
}
