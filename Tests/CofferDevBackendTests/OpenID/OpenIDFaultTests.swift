import CofferTestSupport
@testable import CofferDevBackend
import CryptoExtras
import JWTKit
import XCTest

final class OpenIDFaultTests: OpenIDTestCase {
    /// Each ID-token fault changes the next ID token only, in the way it names.
    func testIDTokenFaults() async throws {
        let keys = try await flow.keys()
        let issuer = backend.issuer.absoluteString
        let jwk = try await client.send(.GET, "/oidc/jwks", backendID: nil).object()["keys"]?.arrayValue?.first ?? .null
        let kid = try XCTUnwrap(jwk["kid"]?.stringValue)

        func faulty(_ fault: OpenIDFault) async throws -> String {
            backend.openIDFaults.arm(fault)
            XCTAssertEqual(backend.openIDFaults.pending, [fault])
            let token = try await flow.login().string("id_token")
            XCTAssertEqual(backend.openIDFaults.pending, [])
            return token
        }
        func assertSignatureFails(_ token: String, _ fault: OpenIDFault) async {
            do {
                _ = try await keys.verify(token, as: TestIDClaims.self)
                XCTFail("\(fault) verified")
            } catch {}
        }

        let expired = try OpenIDFlow.claims(try await faulty(.idTokenExpired))
        XCTAssertLessThan(expired.exp.value, clock.now)
        let audience = try await flow.verify(try await faulty(.idTokenWrongAudience))
        XCTAssertFalse(audience.aud.value.contains(OpenIDFlow.native.id))
        let wrongIssuer = try await flow.verify(try await faulty(.idTokenWrongIssuer))
        XCTAssertNotEqual(wrongIssuer.iss.value, issuer)
        let nonce = try await flow.verify(try await faulty(.idTokenWrongNonce))
        XCTAssertNotEqual(nonce.nonce, OpenIDFlow.Request().nonce)
        XCTAssertNotNil(nonce.nonce)
        let subject = try await flow.verify(try await faulty(.idTokenWrongSubject))
        XCTAssertNotEqual(subject.sub.value, DevIdentity.subject(of: "demo"))

        let badSignature = try await faulty(.idTokenBadSignature)
        XCTAssertEqual(try OpenIDFlow.header(badSignature).kid, kid)
        await assertSignatureFails(badSignature, .idTokenBadSignature)
        let unknownKID = try await faulty(.idTokenUnknownKeyID)
        XCTAssertNotEqual(try OpenIDFlow.header(unknownKID).kid, kid)
        XCTAssertEqual(try OpenIDFlow.header(unknownKID).alg, "RS256")
        await assertSignatureFails(unknownKID, .idTokenUnknownKeyID)
        let unsigned = try await faulty(.idTokenUnsigned)
        XCTAssertEqual(try OpenIDFlow.header(unsigned).alg, "none")
        XCTAssertTrue(unsigned.hasSuffix("."), "empty signature")
        await assertSignatureFails(unsigned, .idTokenUnsigned)

        let confused = try await faulty(.idTokenHS256WithPublicKey)
        XCTAssertEqual(try OpenIDFlow.header(confused).alg, "HS256")
        await assertSignatureFails(confused, .idTokenHS256WithPublicKey)
        let n = try XCTUnwrap(IndependentJWS.decode(jwk["n"]?.stringValue ?? "")), e = try XCTUnwrap(IndependentJWS.decode(jwk["e"]?.stringValue ?? ""))
        let pem = try _RSA.Signing.PublicKey(n: n, e: e).pemRepresentation
        let hmac = await JWTKeyCollection().add(hmac: HMACKey(from: pem), digestAlgorithm: .sha256)
        _ = try await hmac.verify(confused, as: TestIDClaims.self)

        backend.openIDFaults.arm(.idTokenMissing)
        let missing = try await flow.login()
        XCTAssertNil(missing.json?["id_token"])
        XCTAssertNotNil(missing.json?["access_token"])

        let normal = try await flow.verify(try await flow.login().string("id_token"))
        XCTAssertEqual(normal.iss.value, issuer, "faults are one-shot")
    }

    /// ID-token faults apply to refreshes too; `times` arms one for several replies.
    func testFaultsOnRefreshAndTimes() async throws {
        let login = try await flow.login()
        backend.openIDFaults.arm(.idTokenWrongIssuer, times: 2)
        let first = try await flow.refresh(try XCTUnwrap(login.json?["refresh_token"]?.stringValue))
        let second = try await flow.refresh(try XCTUnwrap(first.json?["refresh_token"]?.stringValue))
        let third = try await flow.refresh(try XCTUnwrap(second.json?["refresh_token"]?.stringValue))
        let issuers = try [first, second, third].map { try OpenIDFlow.claims($0.json?["id_token"]?.stringValue ?? "").iss.value }
        XCTAssertEqual(issuers.map { $0 == backend.issuer.absoluteString }, [false, false, true])
    }

    /// The next redirect carries a wrong iss, then redirects are right again.
    func testRedirectWrongIssuer() async throws {
        backend.openIDFaults.arm(.redirectWrongIssuer)
        let wrong = try await flow.authorize(OpenIDFlow.Request())
        XCTAssertNotEqual(wrong.redirectParameters["iss"], backend.issuer.absoluteString)
        XCTAssertNotNil(wrong.redirectParameters["code"])
        let right = try await flow.authorize(OpenIDFlow.Request())
        XCTAssertEqual(right.redirectParameters["iss"], backend.issuer.absoluteString)
    }

    /// The next refresh gets invalid_grant; the refresh token itself stays good.
    func testRefreshInvalidGrant() async throws {
        let token = try await flow.login().string("refresh_token")
        backend.openIDFaults.arm(.refreshInvalidGrant)
        let refused = try await flow.refresh(token)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.json?["error"]?.stringValue, "invalid_grant")
        let ok = try await flow.refresh(token)
        XCTAssertEqual(ok.status, 200)
    }

    /// slow_down once, expired_token once; the device code keeps working afterwards.
    func testDevicePollFaults() async throws {
        let start = try await flow.startDevice().object()
        let deviceCode = start["device_code"]?.stringValue ?? ""
        backend.openIDFaults.arm(.deviceSlowDown)
        let slow = try await flow.poll(deviceCode)
        XCTAssertEqual(slow.json?["error"]?.stringValue, "slow_down")
        backend.openIDFaults.arm(.deviceExpiredToken)
        let expired = try await flow.poll(deviceCode)
        XCTAssertEqual(expired.json?["error"]?.stringValue, "expired_token")
        XCTAssertTrue(backend.approveDeviceLogin(userCode: start["user_code"]?.stringValue ?? "", as: "demo"))
        let tokens = try await flow.poll(deviceCode)
        XCTAssertEqual(tokens.status, 200)
    }

    /// Arming a fault replaces the one of its kind; disarmAll clears them.
    func testArmingRules() {
        let faults = backend.openIDFaults
        faults.arm(.idTokenExpired)
        faults.arm(.idTokenUnsigned)
        faults.arm(.deviceSlowDown)
        XCTAssertEqual(faults.pending, [.idTokenUnsigned, .deviceSlowDown])
        faults.disarmAll()
        XCTAssertEqual(faults.pending, [])
    }

    /// HTTP-level faults can be armed on the OpenID endpoints.
    func testEndpointFaults() async throws {
        backend.faults.inject(.status(500), on: .openIDAuthorization)
        backend.faults.inject(.status(502), on: .deviceAuthorization)
        backend.faults.inject(.status(503), on: .userinfo)
        let authorize = try await flow.authorize(OpenIDFlow.Request())
        XCTAssertEqual(authorize.status, 500)
        let device = try await flow.startDevice()
        XCTAssertEqual(device.status, 502)
        let userinfo = try await flow.userinfo("x")
        XCTAssertEqual(userinfo.status, 503)
    }
}
