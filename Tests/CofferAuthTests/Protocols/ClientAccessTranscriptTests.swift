@testable import CofferAuth
import CofferTestSupport
import Crypto
import CryptoExtras
import Foundation
import X509
import XCTest

/// Coffer's Mobile Client Access client against the golden transcript, played by a real server
/// on 127.0.0.1. The test reads the CSR and the signed code with ``IndependentJWS`` (not
/// CofferAuth's code), and issues the certificate itself with swift-certificates.
final class ClientAccessTranscriptTests: ChallengeTestCase {
    static let realm = "customAuthRealm_1"
    static let tenant = "5b1f2e3d-tenant"

    /// The key of a `jpk` header (`mod`, `exp`: Java `BigInteger` bytes, so never negative).
    static func jpkKey(_ header: JSONValue, file: StaticString = #filePath, line: UInt = #line) throws -> _RSA.Signing.PublicKey {
        let jpk = try XCTUnwrap(header["jpk"], "the header carries jpk", file: file, line: line)
        XCTAssertEqual(jpk["alg"]?.stringValue, "RSA", file: file, line: line)
        let mod = try XCTUnwrap(jpk["mod"]?.stringValue.flatMap(IndependentJWS.decode), file: file, line: line)
        let exp = try XCTUnwrap(jpk["exp"]?.stringValue.flatMap(IndependentJWS.decode), file: file, line: line)
        XCTAssertEqual(mod.first.map { $0 & 0x80 }, 0, "mod is a positive Java BigInteger", file: file, line: line)
        return try IndependentJWS.publicKey(n: mod, e: exp)
    }

    /// A certificate for `key`, as an MCA server issues one (base64 DER), valid around `now`.
    static func certificate(for key: _RSA.Signing.PublicKey, clientID: String, now: Date, notAfter: TimeInterval = 86_400) throws -> String {
        let issuerKey = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(notAfter),
            issuer: try DistinguishedName { CommonName("transcript CA") }, subject: try DistinguishedName { CommonName(clientID) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(issuerKey))
        return Data(try certificate.serializeAsPEM().derBytes).base64EncodedString()
    }

    /// An ID token as the MCA server writes it: a JWT whose `imf.user` names the user.
    static let idToken: String = {
        let header = IndependentJWS.encode(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8), .unpaddedURL)
        let payload = IndependentJWS.encode(Data(#"{"sub":"mca-client-42","aud":"coffer","exp":4102444800,"imf.user":{"id":"john","authBy":"customAuthRealm_1","displayName":"John"}}"#.utf8), .unpaddedURL)
        return "\(header).\(payload).c2lnbmF0dXJl"
    }()

    /// The CSR of a recorded registration, its parts and the key its header carries.
    static func csr(of request: TranscriptServer.Recorded) throws -> (compact: String, key: _RSA.Signing.PublicKey, payload: JSONValue) {
        let compact = try XCTUnwrap(request.form["CSR"])
        let parts = try XCTUnwrap(IndependentJWS.parts(compact))
        let header = try XCTUnwrap(JSONValue(parsing: parts.header))
        XCTAssertEqual(header["alg"]?.stringValue, "RS256")
        return (compact, try jpkKey(header), try XCTUnwrap(JSONValue(parsing: parts.payload)))
    }

    /// The whole flow of the transcript: CSR with an RSA 2048 `jpk`, `X-WL-Session` on every
    /// auth-server request, the challenge in secure JSON, the answer as `Bearer {"realm": …}`,
    /// `wl_result`'s success, `X-WL-Authenticate` over the code, the user from `imf.user`,
    /// `Bearer <access> <id>` on the resource, and `logout?client_id=`.
    func testLoginFollowsTheTranscript() async throws {
        let transcript = try Transcript("clientaccess-login")
        let now = fixture.clock.now
        let server = try await TranscriptServer.start(transcript.replies { request in
            var values = ["id_token": Self.idToken]
            if request.path.hasSuffix("/clients/instance"), let csr = try? Self.csr(of: request) {
                values["certificate"] = try? Self.certificate(for: csr.key, clientID: "mca-client-42", now: now)
            }
            return values
        })
        defer { Task { await server.stop() } }
        let client = fixture.challengeClient(.mobileClientAccess(route: server.baseURL, tenantID: Self.tenant))
        let delegate = TestAuthenticationDelegate(answers: [["username": "john", "password": "secret"]])
        client.registerAuthenticationDelegate(delegate, forRealm: Self.realm)

        let reply = try await ResourceRequest(url: server.baseURL.appendingPathComponent("protected")).send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(delegate.challenges, [["message": "enter your name"]], "the secure JSON was unwrapped")
        let identity = await client.authorizationManager.userIdentity
        XCTAssertEqual(identity, AuthenticatedUser(id: "john", name: "John", authenticatedBy: Self.realm), "from the ID token's imf.user")
        await eventually("the realm's success is reported") { delegate.successes.count == 1 }
        try await client.authorizationManager.logout(securityCheck: Self.realm)

        let requests = server.requests
        transcript.check(requests, values: ["id_token": Self.idToken])
        guard requests.count == transcript.exchanges.count else { return }

        let session = requests[1].header("X-WL-Session")
        XCTAssertNotNil(session)
        for request in requests where request.path.hasPrefix("/imf-authserver") {
            XCTAssertEqual(request.header("X-WL-Session"), session, "\(request): one session id")
        }
        XCTAssertTrue(requests.filter { !$0.path.hasPrefix("/imf-authserver") }.allSatisfy { $0.header("X-WL-Session") == nil }, "resources get no session id")

        let csr = try Self.csr(of: requests[1])
        XCTAssertEqual(csr.key.keySizeInBits, 2048, "RSA 2048, not the SDKs' 512")
        XCTAssertTrue(IndependentJWS.verify(csr.compact, with: csr.key), "the CSR is signed by the key it carries")
        if let verified = try IndependentJWS.verifyWithOpenSSL(csr.compact, with: csr.key) { XCTAssertTrue(verified, "openssl agrees") }
        XCTAssertEqual(csr.payload["applicationId"]?.stringValue, "coffer")
        XCTAssertNotNil(csr.payload["deviceId"]?.stringValue)

        let signedCode = try XCTUnwrap(requests[4].header("X-WL-Authenticate"))
        XCTAssertTrue(IndependentJWS.verify(signedCode, with: csr.key), "the code is signed with the registered key")
        if let verified = try IndependentJWS.verifyWithOpenSSL(signedCode, with: csr.key) { XCTAssertTrue(verified, "openssl agrees") }
        let codeParts = try XCTUnwrap(IndependentJWS.parts(signedCode))
        XCTAssertEqual(JSONValue(parsing: codeParts.payload), ["code": "GRANT123"])
        XCTAssertEqual(try Self.jpkKey(try XCTUnwrap(JSONValue(parsing: codeParts.header))).derRepresentation, csr.key.derRepresentation)
    }
}
