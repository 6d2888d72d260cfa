import CofferBase
import Coffer
@testable import CofferAuth
import CofferTestSupport
import Crypto
import CryptoExtras
import Foundation
import XCTest

/// ID tokens signed apart from jwt-kit (``IndependentJWS``: swift-crypto and RFC 7515 done by
/// hand), checked by ``IDTokenVerifier`` against a JWKS served over real loopback HTTP.
final class IDTokenVerifierTests: XCTestCase {
    private let issuer = "https://id.example"
    private let clientID = "coffer-native"
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private var server: TranscriptServer!
    private let keys = Guarded<[[String: String]]>([])

    override func tearDown() async throws {
        await server?.stop()
    }

    /// A verifier of `issuer`'s tokens for `clientID`, whose JWKS is whatever `keys` holds when
    /// it is fetched (the server counts the fetches).
    private func verifier(leeway: TimeInterval = 60) async throws -> IDTokenVerifier {
        let keys = self.keys
        let reply: @Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply = { _, _ in
            let body = try! JSONSerialization.data(withJSONObject: ["keys": keys.withLock { $0 }])
            return Transcript.Reply(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: body)
        }
        server = try await TranscriptServer.start(Array(repeating: reply, count: 16))
        var provider = OpenIDProvider(issuer: URL(string: issuer)!, tokenEndpoint: URL(string: issuer + "/token")!)
        provider.jwksURI = server.baseURL.appendingPathComponent("jwks")
        let now = self.now
        let transport = HTTPTransport(client: Authorization.defaultHTTPClient, timeout: .seconds(5), maxBodyBytes: 1 << 20, allowsInsecureHTTP: false, logger: quietLogger)
        return IDTokenVerifier(provider: provider, clientID: clientID, transport: transport, leeway: leeway, now: { now })
    }

    private var fetches: Int { server.requests.count }

    private func claims(_ changes: [String: Any] = [:]) throws -> String {
        var claims: [String: Any] = [
            "iss": issuer, "sub": "248289761001", "aud": clientID, "exp": now.timeIntervalSince1970 + 600, "iat": now.timeIntervalSince1970,
        ]
        for (name, value) in changes { claims[name] = value is NSNull ? nil : value }
        return String(decoding: try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]), as: UTF8.self)
    }

    private func ecKey(kid: String) -> (P256.Signing.PrivateKey, [String: String]) {
        let key = P256.Signing.PrivateKey()
        let raw = key.publicKey.rawRepresentation  // X || Y, 32 bytes each
        let jwk = [
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": IndependentJWS.encode(raw.prefix(32), .unpaddedURL), "y": IndependentJWS.encode(raw.suffix(32), .unpaddedURL),
        ]
        return (key, jwk)
    }

    private func es256(_ key: P256.Signing.PrivateKey, kid: String, _ changes: [String: Any] = [:]) throws -> String {
        try IndependentJWS.signES256(header: #"{"alg":"ES256","kid":"\#(kid)","typ":"JWT"}"#, payload: claims(changes), with: key)
    }

    /// An ES256 ID token (ECDSA P-256) verifies; the same token with its signature's last byte
    /// changed does not.
    func testES256IDTokensVerify() async throws {
        let (key, jwk) = ecKey(kid: "ec-1")
        keys.withLock { $0 = [jwk] }
        let verifier = try await verifier()
        let token = try es256(key, kid: "ec-1")
        let verified = try await verifier.verify(token, nonce: nil)
        XCTAssertEqual(verified.sub.value, "248289761001")
        var forged = Array(token.utf8)
        forged[forged.count - 2] = forged[forged.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the ID token's signature does not verify")) {
            try await verifier.verify(String(decoding: forged, as: UTF8.self), nonce: nil)
        }
    }

    /// The provider rotates its key: a token under the new key id is accepted after exactly
    /// one more JWKS fetch, and later tokens under it need none; a key id the refetched JWKS
    /// does not have either is refused after one fetch of its own.
    func testAKeyRotationIsAcceptedAfterOneRefetch() async throws {
        let (old, oldJWK) = ecKey(kid: "2026-1")
        keys.withLock { $0 = [oldJWK] }
        let verifier = try await verifier()
        _ = try await verifier.verify(try es256(old, kid: "2026-1"), nonce: nil)
        XCTAssertEqual(fetches, 1)

        let (new, newJWK) = ecKey(kid: "2026-2")
        keys.withLock { $0 = [newJWK] }
        _ = try await verifier.verify(try es256(new, kid: "2026-2"), nonce: nil)
        XCTAssertEqual(fetches, 2, "one refetch for the new key id")
        _ = try await verifier.verify(try es256(new, kid: "2026-2", ["sub": "248289761001"]), nonce: nil)
        XCTAssertEqual(fetches, 2, "the new key is known now")

        let (stranger, _) = ecKey(kid: "elsewhere")
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the ID token is signed with an unknown key")) {
            try await verifier.verify(try self.es256(stranger, kid: "elsewhere"), nonce: nil)
        }
        XCTAssertEqual(fetches, 3, "one refetch, then refused")
    }

    /// `azp` (OpenID Connect Core §3.1.3.7, items 4 and 5): with several audiences it must be
    /// present and name this client; when present, it must name this client.
    func testTheAuthorizedParty() async throws {
        let (key, jwk) = ecKey(kid: "k")
        keys.withLock { $0 = [jwk] }
        let verifier = try await verifier()
        let refused = AuthError.untrustedResponse(reason: "the ID token's authorized party is another client")
        _ = try await verifier.verify(try es256(key, kid: "k", ["aud": [clientID, "api"], "azp": clientID]), nonce: nil)
        _ = try await verifier.verify(try es256(key, kid: "k", ["azp": clientID]), nonce: nil)
        await XCTAssertThrowsAuthError(refused) { try await verifier.verify(try self.es256(key, kid: "k", ["aud": [self.clientID, "api"]]), nonce: nil) }
        await XCTAssertThrowsAuthError(refused) {
            try await verifier.verify(try self.es256(key, kid: "k", ["aud": [self.clientID, "api"], "azp": "api"]), nonce: nil)
        }
        await XCTAssertThrowsAuthError(refused) { try await verifier.verify(try self.es256(key, kid: "k", ["azp": "other-app"]), nonce: nil) }
    }

    /// `iat` in the future and `exp` in the past pass within the leeway (clock skew) and are
    /// refused beyond it.
    func testIssuedInTheFutureAndExpiryWithinTheLeeway() async throws {
        let (key, jwk) = ecKey(kid: "k")
        keys.withLock { $0 = [jwk] }
        let verifier = try await verifier(leeway: 60)
        let t = now.timeIntervalSince1970
        _ = try await verifier.verify(try es256(key, kid: "k", ["iat": t + 50]), nonce: nil)
        _ = try await verifier.verify(try es256(key, kid: "k", ["iat": t - 700, "exp": t - 50]), nonce: nil)
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the ID token was issued in the future")) {
            try await verifier.verify(try self.es256(key, kid: "k", ["iat": t + 70]), nonce: nil)
        }
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the ID token has expired")) {
            try await verifier.verify(try self.es256(key, kid: "k", ["iat": t - 700, "exp": t - 70]), nonce: nil)
        }
    }
}
