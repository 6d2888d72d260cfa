import CofferTestSupport
@testable import CofferDevBackend
import CryptoExtras
import Foundation
import X509
import XCTest

/// The dev backend's Mobile Client Access authorization server and custom realm over loopback, played by a test client that signs as the SDKs do.
final class ClientAccessRoutesTests: XCTestCase {
    var backend: DevBackend!
    var raw: RawClient { RawClient(backend: backend) }
    let apps = TestClientAccessClient.apps

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }

    /// Registration answers {certificate, clientId}: an X.509 certificate for the client's own key, subject UID=<clientId>.
    func testRegistrationIssuesACertificateForTheClientKey() async throws {
        let (client, reply) = try await TestClientAccessClient(raw: raw).registered()
        let der = try XCTUnwrap(Data(base64Encoded: try reply.string("certificate")))
        let certificate = try Certificate(derEncoded: Array(der))
        XCTAssertEqual(certificate.publicKey, Certificate.PublicKey(client.key.publicKey))
        // UID (0.9.2342.19200300.100.1.1), which the Android SDK reads the client id from.
        XCTAssertTrue(certificate.subject.description.contains("0.9.2342.19200300.100.1.1=\(client.id)"), certificate.subject.description)
    }

    /// The realm challenges (401 WL-Composite-Challenge, secure JSON), reports a wrong answer through wl_result's WL-Authentication-Failure (no code), and redirects a right one with a code and WL-Authentication-Success; the signed-code token opens /mca/protected with Bearer <access> <id>.
    func testRealmChallengeAnswerAndToken() async throws {
        let (client, _) = try await TestClientAccessClient(raw: raw).registered()

        let protectedWithout = try await raw.send(.GET, "/mca/protected")
        XCTAssertEqual(protectedWithout.status, 401)
        XCTAssertEqual(protectedWithout.headers["www-authenticate"], #"Bearer realm="imfAuthentication""#)

        let challenge = try await client.authorize()
        XCTAssertEqual(challenge.status, 401)
        XCTAssertEqual(challenge.headers["www-authenticate"], "WL-Composite-Challenge")
        XCTAssertTrue(challenge.text.hasPrefix("/*-secure-\n{") && challenge.text.hasSuffix("}*/"), challenge.text)
        let inner = String(challenge.text.dropFirst("/*-secure-\n".count).dropLast(2))
        XCTAssertNotNil(JSON(parsing: Data(inner.utf8))?["challenges"]?["customRealm"]?["text"]?.stringValue)

        let wrong = try await client.authorize(answers: ["customRealm": ["username": "demo", "password": "x"]])
        XCTAssertEqual(wrong.status, 302)
        XCTAssertNil(wrong.redirectParameters["code"])
        let failure = try XCTUnwrap(wrong.redirectParameters["wl_result"].flatMap { JSON(parsing: Data($0.utf8)) })
        XCTAssertEqual(failure["WL-Authentication-Failure"]?["customRealm"]?["reason"], "wrong user name or password")

        let right = try await client.authorize(answers: ["customRealm": ["username": "demo", "password": "demo-password"]])
        XCTAssertEqual(right.status, 302)
        let code = try XCTUnwrap(right.redirectParameters["code"])
        let result = try XCTUnwrap(right.redirectParameters["wl_result"].flatMap { JSON(parsing: Data($0.utf8)) })
        XCTAssertEqual(result["WL-Authentication-Success"]?["customRealm"]?["userIdentity"]?["id"], "demo")

        let token = try await client.token(code: code)
        XCTAssertEqual(token.status, 200, token.text)
        let access = try token.string("access_token"), idToken = try token.string("id_token")
        let claims = try XCTUnwrap(IndependentJWS.parts(idToken).flatMap { JSON(parsing: $0.payload) })
        XCTAssertEqual(claims["imf.user"], ["id": "demo", "authBy": "customRealm", "displayName": "demo"])
        XCTAssertEqual(claims["sub"]?.stringValue, client.id)
        XCTAssertEqual(claims["aud"], "com.example")

        let both = try await raw.send(.GET, "/mca/protected", authorization: "Bearer \(access) \(idToken)")
        XCTAssertEqual(both.status, 200)
        XCTAssertEqual(both.json?["userIdentity"]?["authBy"], "customRealm")
        let accessOnly = try await raw.send(.GET, "/mca/protected", authorization: "Bearer \(access)")
        XCTAssertEqual(accessOnly.status, 200, "the validator takes the access token alone too")
        let wrongID = try await raw.send(.GET, "/mca/protected", authorization: "Bearer \(access) \(access)")
        XCTAssertEqual(wrongID.headers["www-authenticate"], #"Bearer realm="imfAuthentication", error="invalid_token""#)
        let notBearer = try await raw.send(.GET, "/mca/protected", authorization: "Basic abc")
        XCTAssertEqual(notBearer.status, 400)
        let mobileFirst = try await raw.send(.GET, "/mfp/protected", authorization: "Bearer \(access)")
        XCTAssertEqual(mobileFirst.status, 401, "an MCA token does not open MobileFirst resources")

        let logout = try await raw.send(.GET, apps + "logout?client_id=\(client.id)", backendID: nil, headers: client.sessionHeader)
        XCTAssertEqual(logout.status, 200)
        let afterLogout = try await raw.send(.GET, "/mca/protected", authorization: "Bearer \(access) \(idToken)")
        XCTAssertEqual(afterLogout.status, 401, "logout revoked the client's tokens")
    }

    /// A CSR signed by another key than its jpk or changed after signing, a code signed by another key or for another code, a replayed signed code, a request without X-WL-Session, and a token request from another session are all refused.
    func testUnsignedOrForeignRequestsAreRefused() async throws {
        let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let unregistered = try TestClientAccessClient(raw: raw)
        let foreignCSR = try await raw.send(.POST, apps + "clients/instance", backendID: nil,
                                            form: URLForm.encode([("CSR", try unregistered.csr(signedBy: stranger))]), headers: unregistered.sessionHeader)
        XCTAssertEqual(foreignCSR.status, 400)
        // The payload changed after signing (another device id), the signature kept.
        let parts = try unregistered.csr().split(separator: ".").map(String.init)
        let otherPayload = IndependentJWS.encode(Data(#"{"deviceId":"device-2","applicationId":"com.example"}"#.utf8), .paddedURL)
        let tamperedCSR = try await raw.send(.POST, apps + "clients/instance", backendID: nil,
                                             form: URLForm.encode([("CSR", [parts[0], otherPayload, parts[2]].joined(separator: "."))]), headers: unregistered.sessionHeader)
        XCTAssertEqual(tamperedCSR.status, 400, "a tampered CSR")
        XCTAssertNil(tamperedCSR.json?["clientId"])
        let noSession = try await raw.send(.POST, apps + "clients/instance", backendID: nil, form: URLForm.encode([("CSR", try unregistered.csr())]))
        XCTAssertEqual(noSession.status, 400)

        let (client, _) = try await unregistered.registered()
        let answer: JSON = ["customRealm": ["username": "demo", "password": "demo-password"]]
        let answered = try await client.authorize(answers: answer)
        let code = try XCTUnwrap(answered.redirectParameters["code"])
        let foreign = try IndependentJWS.sign(header: try client.header(key: stranger), payload: jsonText(["code": .string(code)]), with: stranger)
        let forged = try IndependentJWS.sign(header: try client.header(), payload: jsonText(["code": .string(code)]), with: stranger)
        let otherCode = try IndependentJWS.sign(header: try client.header(), payload: jsonText(["code": "other"]), with: client.key)
        for signed in [foreign, forged, otherCode] {
            let reply = try await client.token(code: code, signedCode: signed)
            XCTAssertEqual(reply.status, 401, reply.text)
        }
        let otherSession = try await client.token(code: code, session: "another-session")
        XCTAssertEqual(otherSession.json?["error"], "invalid_grant", "the code belongs to the session it was issued in")

        let answeredAgain = try await client.authorize(answers: answer)
        let second = try XCTUnwrap(answeredAgain.redirectParameters["code"])
        let signed = try IndependentJWS.sign(header: try client.header(), payload: jsonText(["code": .string(second)]), with: client.key)
        let good = try await client.token(code: second, signedCode: signed)
        XCTAssertEqual(good.status, 200)
        let replay = try await client.token(code: second, signedCode: signed)
        XCTAssertEqual(replay.status, 401, "a signed code is good once")

        let unknown = try await raw.send(.GET, apps + "authorization?response_type=code&client_id=nobody&redirect_uri=x", backendID: nil, headers: client.sessionHeader)
        XCTAssertEqual(unknown.status, 400)
    }
}
