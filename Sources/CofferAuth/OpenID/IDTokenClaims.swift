import Foundation
import JWTKit

/// The claims of an ID token that Coffer checks and uses (OpenID Connect Core §2).
struct IDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var azp: String?
    var preferred_username: String?
    var email: String?
    var name: String?

    /// jwt-kit calls this after the signature check; the claims are checked afterwards against
    /// the injected clock (``IDTokenVerifier``), so nothing is done here.
    func verify(using _: some JWTAlgorithm) async throws {}

    var identity: AuthenticatedUser {
        AuthenticatedUser(id: sub.value, name: name, preferredUsername: preferred_username, email: email)
    }
}
