import CofferTestSupport
@testable import CofferDevBackend
import Crypto
import JWTKit
import XCTest

final class IDTokenTests: OpenIDTestCase {
    /// The ID token verifies with jwt-kit against the JWKS and carries the claims of OpenID
    /// Connect Core §2: the exact issuer, the client as audience, the nonce, a stable sub, the
    /// times by the injected clock, at_hash, and the profile and email claims.
    func testIDTokenVerifiesAgainstTheJWKS() async throws {
        let request = OpenIDFlow.Request()
        let login = try await flow.login(request)
        let idToken = try XCTUnwrap(login.json?["id_token"]?.stringValue)
        let header = try OpenIDFlow.header(idToken)
        XCTAssertEqual(header.alg, "RS256")
        let jwks = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        XCTAssertEqual(header.kid, jwks.json?["keys"]?.arrayValue?.first?["kid"]?.stringValue)

        let claims = try await flow.verify(idToken)
        XCTAssertEqual(claims.iss.value, backend.issuer.absoluteString)
        XCTAssertEqual(claims.aud.value, [request.clientID])
        XCTAssertEqual(claims.nonce, request.nonce)
        XCTAssertEqual(claims.sub.value, DevIdentity.subject(of: "demo"))
        XCTAssertTrue(claims.sub.value.hasPrefix("dev-"))
        XCTAssertEqual(claims.iat.value, clock.now)
        XCTAssertEqual(claims.exp.value, clock.now.addingTimeInterval(3600))
        XCTAssertEqual(claims.auth_time, clock.now)
        XCTAssertEqual(claims.preferred_username, "demo")
        XCTAssertEqual(claims.name, "Demo Tester")
        XCTAssertEqual(claims.email, "demo@example.test")
        let access = try XCTUnwrap(login.json?["access_token"]?.stringValue)
        XCTAssertEqual(claims.at_hash, IndependentJWS.encode(SHA256Digest.of(access).prefix(16), .unpaddedURL))
        let aud = try XCTUnwrap(JSON(parsing: IndependentJWS.decode(idToken.split(separator: ".")[1]) ?? Data())?["aud"])
        XCTAssertEqual(aud, .string(request.clientID), "aud is a plain string")

        var noNonce = OpenIDFlow.Request()
        noNonce.nonce = nil
        noNonce.scope = "openid"
        let plain = try await flow.verify(try await flow.login(noNonce).string("id_token"))
        XCTAssertNil(plain.nonce)
        XCTAssertNil(plain.preferred_username)
        XCTAssertNil(plain.email)
        XCTAssertEqual(plain.sub.value, claims.sub.value, "sub is stable")
    }

    /// Without the openid scope there is no ID token; a second backend has another key.
    func testNoOpenIDScopeNoIDTokenAndKeysDiffer() async throws {
        var request = OpenIDFlow.Request()
        request.scope = "profile offline_access"
        let login = try await flow.login(request)
        XCTAssertNil(login.json?["id_token"])
        XCTAssertNotNil(login.json?["refresh_token"])

        let idToken = try await flow.login().string("id_token")
        let second = try await DevBackend.start(configuration())
        do {
            let otherKeys = try await OpenIDFlow(client: RawClient(backend: second)).keys()
            do {
                _ = try await otherKeys.verify(idToken, as: TestIDClaims.self)
                XCTFail("another backend's key verified the token")
            } catch let error as JWTError {
                XCTAssertEqual(error.errorType, .signatureVerificationFailed)
            }
        }
        await second.stop()
    }

    /// UserInfo answers the token's user with the claims of its scope; other tokens get 401, a
    /// token without openid 403.
    func testUserInfo() async throws {
        let login = try await flow.login()
        let access = try XCTUnwrap(login.json?["access_token"]?.stringValue)
        let reply = try await flow.userinfo(access)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json, [
            "sub": .string(DevIdentity.subject(of: "demo")), "preferred_username": "demo", "name": "Demo Tester",
            "email": "demo@example.test", "email_verified": true,
        ])
        let post = try await client.send(.POST, "/oidc/userinfo", authorization: "Bearer \(access)", backendID: nil, form: "")
        XCTAssertEqual(post.status, 200)
        let none = try await client.send(.GET, "/oidc/userinfo", backendID: nil)
        XCTAssertEqual(none.status, 401)
        let bogus = try await flow.userinfo("bogus")
        XCTAssertEqual(bogus.status, 401)
        XCTAssertEqual(bogus.headers["www-authenticate"], #"Bearer realm="coffer-dev", error="invalid_token""#)
        let password = try await client.passwordToken()
        let forbidden = try await flow.userinfo(password)
        XCTAssertEqual(forbidden.status, 403)
        clock.advance(by: 301)
        let expired = try await flow.userinfo(access)
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(backend.statistics.userinfoRequests, 6)
    }
}
