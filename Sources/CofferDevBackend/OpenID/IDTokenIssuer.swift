import Crypto
import Foundation
import JWTKit

extension DevBackendState {
    /// The issuer identifier: the base URL and `/oidc`, exactly as discovery, ID tokens and
    /// authorization redirects name it. `nil` until the server listens.
    var issuer: String? {
        baseURL.map { $0.absoluteString + DevBackendPath.OpenID.issuer }
    }

    /// A signed ID token for `user` (OpenID Connect Core §2), with the claims `scope` releases,
    /// or `nil` when ``OpenIDFault/idTokenMissing`` is armed. An armed ID-token fault changes it.
    func idToken(
        user: String, clientID: String, scope: [String], nonce: String?, authTime: Date, accessToken: String
    ) async throws -> String? {
        guard let issuer else { throw DevBackendError.noPort }
        let key = try await signingKeys.current()
        let now = Int(self.now.timeIntervalSince1970.rounded(.down))
        let claims = DevIdentity.claims(of: user, scope: scope)
        var payload = IDTokenPayload(
            issuer: issuer, subject: DevIdentity.subject(of: user), audience: clientID,
            expires: now + Int(configuration.openID.idTokenLifetime.rounded()), issuedAt: now,
            authTime: Int(authTime.timeIntervalSince1970.rounded(.down)), nonce: nonce,
            accessTokenHash: UnpaddedBase64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))).prefix(16)),
            preferredUsername: claims["preferred_username"]?.stringValue, name: claims["name"]?.stringValue,
            email: claims["email"]?.stringValue, emailVerified: claims["email_verified"]?.boolValue)
        let fault = openIDFaults.take(.idToken)
        switch fault {
        case .idTokenMissing?: return nil
        case .idTokenExpired?:
            payload.expires = now - 3600
            payload.issuedAt = now - 7200
        case .idTokenWrongAudience?: payload.audience = clientID + "-other"
        case .idTokenWrongIssuer?: payload.issuer = issuer + "-evil"
        case .idTokenWrongNonce?: payload.nonce = "wrong-" + RandomToken.make(bytes: 16)
        case .idTokenWrongSubject?: payload.subject = DevIdentity.subject(of: user + "-other")
        default: break
        }
        switch fault {
        case .idTokenBadSignature?:
            return try await SigningKeys.stranger.current().sign(payload, kid: key.kid)
        case .idTokenUnknownKeyID?:
            return try await SigningKeys.stranger.current().sign(payload)
        case .idTokenUnsigned?:
            let kid = JWKIdentifier(string: key.kid)
            return try await JWTKeyCollection().addUnsecuredNone(kid: kid).sign(payload, kid: kid)
        case .idTokenHS256WithPublicKey?:
            let kid = JWKIdentifier(string: key.kid)
            return try await JWTKeyCollection().add(hmac: HMACKey(from: key.publicKeyPEM), digestAlgorithm: .sha256, kid: kid)
                .sign(payload, kid: kid)
        default:
            return try await key.sign(payload)
        }
    }
}
