@testable import CofferAuth
import CofferTestSupport
import CryptoExtras
import Foundation
import XCTest

/// Coffer's MobileFirst client against the golden transcripts (Fixtures/Transcripts), played by
/// a real server on 127.0.0.1: it must send the SDKs' requests, signed so that an independent
/// verifier (``IndependentJWS``, not CofferAuth's code) accepts them, and accept the real replies.
final class MobileFirstTranscriptTests: ChallengeTestCase {
    static let clientID = "3f2a0c1e-7d1b-4c55-9a0e-1b2c3d4e5f60"
    static let code = "XYZ-grant-code"

    /// The key a registration JWS's header carries (`jwk`: `n`, `e`), read by the test.
    static func headerKey(_ header: JSONValue, file: StaticString = #filePath, line: UInt = #line) throws -> _RSA.Signing.PublicKey {
        let jwk = try XCTUnwrap(header["jwk"], "the header carries a JWK", file: file, line: line)
        XCTAssertEqual(jwk["kty"]?.stringValue, "RSA", file: file, line: line)
        let n = try XCTUnwrap(jwk["n"]?.stringValue.flatMap(IndependentJWS.decode), file: file, line: line)
        let e = try XCTUnwrap(jwk["e"]?.stringValue.flatMap(IndependentJWS.decode), file: file, line: line)
        return try IndependentJWS.publicKey(n: n, e: e)
    }

    /// Registration with a JWK, challenge, code, a token request whose assertion names the code
    /// (`jti`), the token endpoint (`aud`) and the client (`kid`, `sub`), dated by the server's
    /// clock; the resource's bare `Bearer` 401 asks for a token; logout carries an assertion.
    func testLoginFollowsTheTranscript() async throws {
        let transcript = try Transcript("mobilefirst-login")
        // The server's clock runs 1000 s ahead of the client's.
        let serverTime = (fixture.clock.now.timeIntervalSince1970 * 1000).rounded() + 1_000_000
        let server = try await TranscriptServer.start(transcript.replies { _ in ["serverTime": String(Int(serverTime))] })
        defer { Task { await server.stop() } }
        let client = fixture.challengeClient(.mobileFirst(server.baseURL))
        let handler = TestChallengeHandler(securityCheck: "PinCodeAttempts", .answers([["pin": "1234"]]))
        client.registerChallengeHandler(handler)

        let reply = try await ResourceRequest(url: server.baseURL.appendingPathComponent("api/balance")).send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(handler.challenges, [["errorMsg": .null, "remainingAttempts": 3]])
        try await client.authorizationManager.logout(securityCheck: "PinCodeAttempts")

        let requests = server.requests
        transcript.check(requests, values: ["base": server.baseURL.absoluteString])
        guard requests.count == transcript.exchanges.count else { return }

        // Registration: an RS256 JWS over the device and application data, whose header carries
        // the public key (no kid), signed by that key.
        let registration = try XCTUnwrap(JSONValue(parsing: requests[1].body)?["signedRegistrationData"])
        let compact = ["header", "payload", "signature"].compactMap { registration[$0]?.stringValue }.joined(separator: ".")
        let parts = try XCTUnwrap(IndependentJWS.parts(compact))
        let header = try XCTUnwrap(JSONValue(parsing: parts.header))
        XCTAssertEqual(header["alg"]?.stringValue, "RS256")
        XCTAssertNil(header["jwk"]?["kid"], "the registration names no client yet")
        let key = try Self.headerKey(header)
        XCTAssertGreaterThanOrEqual(key.keySizeInBits, 2048)
        XCTAssertTrue(IndependentJWS.verify(compact, with: key), "the registration is signed by the key it carries")
        if let verified = try IndependentJWS.verifyWithOpenSSL(compact, with: key) { XCTAssertTrue(verified, "openssl agrees") }
        var forged = Array(compact)
        forged[forged.count / 2] = forged[forged.count / 2] == "A" ? "B" : "A"
        if let verified = try IndependentJWS.verifyWithOpenSSL(String(forged), with: key) { XCTAssertFalse(verified, "openssl refuses a changed byte") }
        let data = try XCTUnwrap(JSONValue(parsing: parts.payload))
        XCTAssertEqual(data["application"]?["id"]?.stringValue, "coffer")
        XCTAssertEqual(data["application"]?["clientPlatform"]?.stringValue, "web")
        XCTAssertNotNil(data["device"]?["id"]?.stringValue)

        // The token request's assertion.
        for (index, jti, audience) in [(5, Self.code as String?, "az/v1/token" as String?), (7, nil, nil)] {
            let assertion = try XCTUnwrap(requests[index].form["client_assertion"])
            XCTAssertTrue(IndependentJWS.verify(assertion, with: key), "\(requests[index]): signed with the registered key")
            if let verified = try IndependentJWS.verifyWithOpenSSL(assertion, with: key) { XCTAssertTrue(verified, "\(requests[index]): openssl agrees") }
            let assertionParts = try XCTUnwrap(IndependentJWS.parts(assertion))
            let assertionHeader = try XCTUnwrap(JSONValue(parsing: assertionParts.header))
            XCTAssertEqual(assertionHeader["alg"]?.stringValue, "RS256")
            XCTAssertEqual(assertionHeader["jwk"]?["kid"]?.stringValue, Self.clientID)
            XCTAssertEqual(try Self.headerKey(assertionHeader).derRepresentation, key.derRepresentation)
            let claims = try XCTUnwrap(JSONValue(parsing: assertionParts.payload))
            XCTAssertEqual(claims["sub"]?.stringValue, Self.clientID)
            XCTAssertEqual(claims["iss"]?.stringValue, "coffer$web")
            XCTAssertEqual(claims["jti"]?.stringValue, jti)
            XCTAssertEqual(claims["aud"]?.stringValue, audience)
            let issuedAt = try XCTUnwrap(claims["iat"]?.numberValue), expiresAt = try XCTUnwrap(claims["exp"]?.numberValue)
            XCTAssertEqual(issuedAt, serverTime, accuracy: 5_000, "dated by the server's clock (milliseconds)")
            XCTAssertEqual(expiresAt - issuedAt, 60_000, "it lasts 60 s")
        }
    }
}
