@testable import CofferAuth
import CofferTestSupport
import CryptoExtras
import Foundation
import XCTest

/// How Coffer's Mobile Client Access client answers bad or refusing replies (docs/protocol.md
/// 9.5), from a scripted server on 127.0.0.1.
final class ClientAccessReplyTests: ChallengeTestCase {
    static let realm = ClientAccessTranscriptTests.realm
    static let apps = "/imf-authserver/authorization/v1/apps/\(ClientAccessTranscriptTests.tenant)"

    /// A registration reply whose certificate holds `key`, or the CSR's own key when `key` is nil.
    static func registered(otherKey: _RSA.Signing.PublicKey? = nil, validFor lifetime: TimeInterval = 86_400) -> @Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply {
        { request, _ in
            let key = otherKey ?? (try? ClientAccessTranscriptTests.csr(of: request))?.key
            let certificate = key.flatMap { try? ClientAccessTranscriptTests.certificate(for: $0, clientID: "c1", now: Date(), notAfter: lifetime) } ?? ""
            return Transcript.Reply(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Data(#"{"certificate":"\#(certificate)","clientId":"c1"}"#.utf8))
        }
    }

    static let challenge = Transcript.reply(
        401, [("WWW-Authenticate", "WL-Composite-Challenge"), ("Content-Type", "text/plain")], "/*-secure-\n{\"challenges\":{\"\(realm)\":{}}}*/")

    private func start(_ replies: [@Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply]) async throws -> (TranscriptServer, ChallengeClient) {
        let server = try await TranscriptServer.start(replies)
        let client = fixture.challengeClient(.mobileClientAccess(route: server.baseURL, tenantID: ClientAccessTranscriptTests.tenant))
        client.registerAuthenticationDelegate(TestAuthenticationDelegate(answers: [["username": "john", "password": "secret"]]), forRealm: Self.realm)
        return (server, client)
    }

    /// A certificate for another key than the client's (a wrong key) is refused, and nothing is stored.
    func testCertificateForAnotherKeyIsRefused() async throws {
        let other = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey
        let (server, client) = try await start([Self.registered(otherKey: other)])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the registration certificate is for another key")) {
            try await client.authorizationManager.obtainAccessToken()
        }
        XCTAssertNil(try fixture.storedChallengeSession(of: client)?.registration)
    }

    /// A certificate that expires within five minutes is refused, as the SDKs refuse it.
    func testCertificateAboutToExpireIsRefused() async throws {
        let (server, client) = try await start([Self.registered(validFor: 60)])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.untrustedResponse(reason: "the registration certificate is not valid now")) {
            try await client.authorizationManager.obtainAccessToken()
        }
    }

    /// A challenge body neither wrapped as secure JSON nor typed as JSON is malformed.
    func testChallengeWithoutSecureJSONIsMalformed() async throws {
        let (server, client) = try await start([
            Self.registered(),
            Transcript.reply(401, [("WWW-Authenticate", "WL-Composite-Challenge"), ("Content-Type", "text/plain")], "{\"challenges\":{\"\(Self.realm)\":{}}}"),
        ])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(matching: { if case .malformedResponse = $0 { true } else { false } }) {
            try await client.authorizationManager.obtainAccessToken()
        }
    }

    /// A redirect whose `wl_result` reports `WL-Authentication-Failure` fails the realm with the server's payload.
    func testWLResultFailureFailsTheRealm() async throws {
        let failure = #"{"WL-Authentication-Failure":{"customAuthRealm_1":{"reason":"account locked"}}}"#
        let query = failure.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (server, client) = try await start([
            Self.registered(), Self.challenge, Transcript.reply(302, [("Location", "http://localhost?code=C1&wl_result=\(query)")]),
        ])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.challengeFailed(check: Self.realm, payload: ["reason": "account locked"])) {
            try await client.authorizationManager.obtainAccessToken()
        }
        XCTAssertFalse(server.requests.contains { $0.path.hasSuffix("/token") }, "no token is asked for")
    }

    /// A token reply without `id_token` is malformed, and no token is stored.
    func testTokenReplyWithoutIDTokenIsMalformed() async throws {
        let (server, client) = try await start([
            Self.registered(), Transcript.reply(302, [("Location", "http://localhost?code=C1")]),
            Transcript.json(200, #"{"access_token":"a","expires_in":3600}"#),
        ])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.malformedResponse(reason: "the token reply has no id_token")) {
            try await client.authorizationManager.obtainAccessToken()
        }
        XCTAssertEqual(try fixture.storedChallengeSession(of: client)?.tokens.count ?? 0, 0)
    }
}
