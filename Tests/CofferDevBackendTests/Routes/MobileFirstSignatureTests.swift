import CofferTestSupport
@testable import CofferDevBackend
import CryptoExtras
import Foundation
import XCTest

/// The MobileFirst runtime refuses what a real server refuses: tampered, unsigned or weakly keyed registrations, and client assertions that are forged, replayed, expired, another client's, or for another code or audience.
final class MobileFirstSignatureTests: DevBackendTestCase {
    private let registration = TestMobileFirstClient.runtime + "registration/v1/self"

    /// A registration whose payload was changed after signing, one with no signature, one with alg none, one with no key, and one with a 1024-bit key are all refused (403 "Invalid request."), and no client is made.
    func testBadRegistrationsAreRefused() async throws {
        let client = try TestMobileFirstClient(raw: raw)
        var tampered = try client.registrationBody()
        let otherPayload = IndependentJWS.encode(Data(jsonText(TestMobileFirstClient.registrationData(hardware: "tampered")).utf8), .paddedURL)
        tampered = ["signedRegistrationData": ["header": tampered["signedRegistrationData"]!["header"]!, "payload": .string(otherPayload),
                                               "signature": tampered["signedRegistrationData"]!["signature"]!]]
        var unsigned = try client.registrationBody()
        unsigned = ["signedRegistrationData": ["header": unsigned["signedRegistrationData"]!["header"]!,
                                               "payload": unsigned["signedRegistrationData"]!["payload"]!, "signature": ""]]
        let none = jsonText(["alg": "none", "jwk": (JSON(parsing: Data(try client.header().utf8))?["jwk"])!])
        let noneJWS = try IndependentJWS.sign(header: none, payload: jsonText(TestMobileFirstClient.registrationData()), with: client.key).split(separator: ".")
        let noKey = try IndependentJWS.sign(header: #"{"alg":"RS256"}"#, payload: jsonText(TestMobileFirstClient.registrationData()), with: client.key).split(separator: ".")
        let weak = try TestMobileFirstClient(raw: raw, key: try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)))
        let bodies: [JSON] = [
            tampered, unsigned,
            ["signedRegistrationData": ["header": .string(String(noneJWS[0])), "payload": .string(String(noneJWS[1])), "signature": .string(String(noneJWS[2]))]],
            ["signedRegistrationData": ["header": .string(String(noKey[0])), "payload": .string(String(noKey[1])), "signature": .string(String(noKey[2]))]],
            try weak.registrationBody(),
            ["application": ["id": "tests", "version": "1"]],
        ]
        for body in bodies {
            let reply = try await raw.post(registration, json: body)
            XCTAssertEqual(reply.status, 403, "\(body): \(reply.text)")
            XCTAssertEqual(reply.json?["errorCode"], "INVALID_REQUEST")
            XCTAssertNil(reply.headers["location"])
        }
        XCTAssertEqual(backend.statistics.refusedSignatures, 2, "the tampered and the alg-none registrations fail their signature check")
    }

    /// A code and a client that get a token with a good assertion, for the negative cases.
    private func clientWithCode() async throws -> (TestMobileFirstClient, String) {
        let client = try await TestMobileFirstClient(raw: raw).registered()
        _ = try await client.preauthorize("PinCodeAttempts", ["PinCodeAttempts": ["pin": "1234"]])
        let authorized = try await client.code(scope: "PinCodeAttempts")
        return (client, try XCTUnwrap(authorized.code))
    }

    /// Token requests with a forged assertion (another key), an expired one, one for another code, one for another audience, one lasting too long, one dated in the future, one without the assertion type, and one naming another client's id are refused with 401 invalid_client; the code is still good afterwards.
    func testBadAssertionsAreRefusedAtTheTokenEndpoint() async throws {
        let (client, code) = try await clientWithCode()
        let other = try await TestMobileFirstClient(raw: raw).registered()
        let forger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let now = clock.now
        let bad: [(String, String)] = [
            ("another key", try client.assertion(at: now, jti: code, aud: "az/v1/token", signedBy: forger)),
            ("expired", try client.assertion(at: now.addingTimeInterval(-61), jti: code, aud: "az/v1/token")),
            ("another code", try client.assertion(at: now, jti: "other-code", aud: "az/v1/token")),
            ("another audience", try client.assertion(at: now, jti: code, aud: "https://elsewhere.example/token")),
            ("lasting an hour", try client.assertion(at: now, jti: code, aud: "az/v1/token", lifetime: 3600)),
            ("from the future", try client.assertion(at: now.addingTimeInterval(30), jti: code, aud: "az/v1/token")),
            ("another client's", try client.assertion(at: now, jti: code, aud: "az/v1/token", subject: other.id)),
        ]
        for (what, assertion) in bad {
            let reply = try await client.token(code: code, assertion: assertion)
            XCTAssertEqual(reply.status, 401, "\(what): \(reply.text)")
            XCTAssertEqual(reply.json?["error"], "invalid_client", what)
        }
        let untyped = try await raw.send(.POST, TestMobileFirstClient.runtime + "az/v1/token", backendID: nil,
                                         form: "code=\(code)&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp%2Fcb&client_assertion=x")
        XCTAssertEqual(untyped.status, 401)
        XCTAssertEqual(backend.statistics.refusedSignatures, bad.count + 1)

        let absolute = try await client.token(code: code, assertion: try client.assertion(at: now, jti: code, aud: backend.baseURL.absoluteString + "/mfp/api/az/v1/token"))
        XCTAssertEqual(absolute.status, 200, "the Android SDK's absolute aud: \(absolute.text)")
    }

    /// A replayed assertion is refused: the same logout assertion twice, and a token assertion reused after its code was spent.
    func testReplayedAssertionsAreRefused() async throws {
        let (client, code) = try await clientWithCode()
        let assertion = try client.assertion(at: clock.now, jti: code, aud: "az/v1/token")
        let first = try await client.token(code: code, assertion: assertion)
        XCTAssertEqual(first.status, 200)
        let replay = try await client.token(code: code, assertion: assertion)
        XCTAssertEqual(replay.status, 401)
        XCTAssertEqual(replay.json?["error_description"], "the assertion was used before")

        let logout = try client.assertion(at: clock.now)
        let once = try await client.logout("PinCodeAttempts", assertion: logout)
        XCTAssertEqual(once.status, 200)
        let twice = try await client.logout("PinCodeAttempts", assertion: logout)
        XCTAssertEqual(twice.status, 401)
    }

    /// An assertion naming an unknown client is 400 INVALID_CLIENT_ID, so that the SDKs register again.
    func testAnAssertionOfAnUnknownClientIsInvalidClientID() async throws {
        var client = try TestMobileFirstClient(raw: raw)
        client.id = "never-registered"
        let reply = try await client.token(code: "x", assertion: try client.assertion(at: clock.now, jti: "x", aud: "az/v1/token"))
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.json?["errorCode"], "INVALID_CLIENT_ID")
    }
}
