import Foundation
import JWTKit

/// Checks ID tokens as OpenID Connect Core §3.1.3.7 says: the signature against the issuer's
/// JSON Web Key Set (fetched again, once, for a key id it does not know), then `iss`, `aud`
/// and `azp`, `exp` and `iat` with leeway, and the `nonce`. Only asymmetric algorithms are
/// accepted: `alg: none` and HMAC are refused before any key is looked up, so a public key
/// can never be used as an HMAC secret. The signature itself is checked by jwt-kit.
actor IDTokenVerifier {
    /// The algorithms accepted, whatever the provider advertises.
    static let asymmetricAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    let provider: OpenIDProvider
    let clientID: String
    let transport: HTTPTransport
    let leeway: TimeInterval
    let now: @Sendable () -> Date

    private var keys: KeySet?

    /// The keys of the last JWKS fetched, and their ids.
    private struct KeySet {
        let collection: JWTKeyCollection
        let kids: Set<String>
    }

    init(provider: OpenIDProvider, clientID: String, transport: HTTPTransport, leeway: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.provider = provider
        self.clientID = clientID
        self.transport = transport
        self.leeway = leeway
        self.now = now
    }

    /// The verified claims of `token`. `nonce`: the one the login sent, or `nil` when none was
    /// (device flow, refresh). `subject`: after a refresh, the user the session belongs to.
    func verify(_ token: String, nonce: String?, subject: String? = nil) async throws(AuthError) -> IDTokenClaims {
        // The header alone, to pick the key: jwt-kit decodes the payload once, when it verifies.
        guard let parts = try? DefaultJWTParser().getTokenParts(Array(token.utf8)),
              let headerBytes = Base64URL.decode(String(decoding: parts.header, as: UTF8.self)),
              let header = JSONValue(parsing: headerBytes)?.objectValue,
              let alg = Self.optionalString(header["alg"]), let kid = Self.optionalString(header["kid"])
        else { throw .untrustedResponse(reason: "the ID token is not a signed JWT") }
        guard let algorithm = alg, Self.asymmetricAlgorithms.contains(algorithm) else {
            throw .untrustedResponse(reason: "the ID token's algorithm \((alg ?? "none").prefix(16)) is not accepted")
        }
        var set = try await keySet(refreshingFor: kid)
        if let kid, !set.kids.contains(kid) {
            guard let refreshed = try? await fetchKeys(), refreshed.kids.contains(kid) else {
                throw .untrustedResponse(reason: "the ID token is signed with an unknown key")
            }
            set = refreshed
        }
        let claims: IDTokenClaims
        do {
            claims = try await set.collection.verify(token, as: IDTokenClaims.self, iteratingKeys: kid == nil)
        } catch {
            throw .untrustedResponse(reason: "the ID token's signature does not verify")
        }
        try check(claims, nonce: nonce, subject: subject)
        return claims
    }

    /// A header member that must be a string when present: `.some(nil)` when absent or null,
    /// `nil` when it is something else (as jwt-kit's `JWTHeader` refuses it).
    private static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }

    private func check(_ claims: IDTokenClaims, nonce: String?, subject: String?) throws(AuthError) {
        let now = self.now()
        guard claims.iss.value == provider.issuer.absoluteString else {
            throw .untrustedResponse(reason: "the ID token's issuer is not \(provider.issuer.absoluteString)")
        }
        guard claims.aud.value.contains(clientID) else { throw .untrustedResponse(reason: "the ID token is for another audience") }
        if claims.aud.value.count > 1 || claims.azp != nil {
            guard claims.azp == clientID else { throw .untrustedResponse(reason: "the ID token's authorized party is another client") }
        }
        guard claims.exp.value > now.addingTimeInterval(-leeway) else { throw .untrustedResponse(reason: "the ID token has expired") }
        guard claims.iat.value <= now.addingTimeInterval(leeway) else { throw .untrustedResponse(reason: "the ID token was issued in the future") }
        if let nonce {
            guard claims.nonce == nonce else { throw .untrustedResponse(reason: "the ID token's nonce is not the login's") }
        }
        if let subject {
            guard claims.sub.value == subject else { throw .untrustedResponse(reason: "the ID token names another user") }
        }
    }

    private func keySet(refreshingFor kid: String?) async throws(AuthError) -> KeySet {
        if let keys { return keys }
        return try await fetchKeys()
    }

    /// Fetches the JWKS and keeps the keys jwt-kit can use for signatures: one key it cannot
    /// read (an encryption key, an HMAC key, an unknown curve) is skipped, not fatal.
    private func fetchKeys() async throws(AuthError) -> KeySet {
        guard let url = provider.jwksURI else { throw .untrustedResponse(reason: "the provider publishes no signing keys (jwks_uri)") }
        let response = try await transport.send(BackendRequest.make(.get, url, backendID: nil))
        guard response.status == 200 else { throw .serverError(status: response.status) }
        let document = try JSONReply.object(response)
        guard let entries = document["keys"]?.arrayValue else { throw .malformedResponse(reason: "the JWKS has no keys") }
        let collection = JWTKeyCollection()
        var kids: Set<String> = []
        for entry in entries {
            guard var key = entry.objectValue, key["use"].map({ $0.stringValue == "sig" }) ?? true else { continue }
            if let alg = key["alg"]?.stringValue, !Self.asymmetricAlgorithms.contains(alg) { continue }
            if key["kid"] == nil, entries.count == 1 { key["kid"] = .string("coffer-only-key") }
            guard let kid = key["kid"]?.stringValue,
                  let jwk = try? JWK(json: String(decoding: JSONValue.object(key).compactJSON, as: UTF8.self)),
                  (try? await collection.add(jwk: jwk)) != nil
            else { continue }
            kids.insert(kid)
        }
        guard !kids.isEmpty else { throw .untrustedResponse(reason: "the JWKS holds no usable signing key") }
        let set = KeySet(collection: collection, kids: kids)
        keys = set
        return set
    }
}
