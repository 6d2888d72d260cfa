import CofferTestSupport
@testable import CofferDevBackend
import Foundation
import XCTest

/// The dev backend's MobileFirst runtime over loopback, played by a test client that signs as an SDK would: registration, preauthorize, the code flow, logout and the resources.
final class MobileFirstRoutesTests: DevBackendTestCase {
    private func registered() async throws -> TestMobileFirstClient {
        try await TestMobileFirstClient(raw: raw).registered()
    }

    /// PinCodeAttempts: 401 MFP-Challenge with remainingAttempts 3, 2, 1 and errorMsg; the third wrong PIN gives 403 "Account blocked" for 60 s by the clock.
    func testPinCodeCountsAttemptsAndBlocksFor60Seconds() async throws {
        let client = try await registered()
        let first = try await client.preauthorize("PinCodeAttempts")
        XCTAssertEqual(first.status, 401)
        XCTAssertEqual(first.headers["www-authenticate"], "MFP-Challenge")
        XCTAssertEqual(first.json?["challenges"]?["PinCodeAttempts"], ["errorMsg": .null, "remainingAttempts": 3])
        for remaining in [2, 1] {
            let wrong = try await client.preauthorize("PinCodeAttempts", ["PinCodeAttempts": ["pin": "0000"]])
            XCTAssertEqual(wrong.json?["challenges"]?["PinCodeAttempts"], ["errorMsg": "Pin code is not valid.", "remainingAttempts": .number(Double(remaining))])
        }
        let blocked = try await client.preauthorize("PinCodeAttempts", ["PinCodeAttempts": ["pin": "0000"]])
        XCTAssertEqual(blocked.status, 403)
        XCTAssertEqual(blocked.json?["failures"]?["PinCodeAttempts"], ["failure": "Account blocked", "blockedForSeconds": 60])

        clock.advance(by: 59)
        let stillBlocked = try await client.preauthorize("PinCodeAttempts", ["PinCodeAttempts": ["pin": "1234"]])
        XCTAssertEqual(stillBlocked.json?["failures"]?["PinCodeAttempts"]?["blockedForSeconds"], 1, "even the right PIN is refused while blocked")
        clock.advance(by: 1)
        let open = try await client.preauthorize("PinCodeAttempts", ["PinCodeAttempts": ["pin": "1234"]])
        XCTAssertEqual(open.status, 200)
        XCTAssertEqual(open.json?["successes"]?["PinCodeAttempts"], [:])
        XCTAssertEqual(open.json?["successes"]?["clockSynchronization"]?["serverTimeStamp"]?.numberValue,
                       (clock.now.timeIntervalSince1970 * 1000).rounded(.down), "the server's clock, in ms")
    }

    /// UserLogin: the name must equal the password (non-empty); a success lasts 60 s, with rememberMe 120 s; three wrong answers block for 10 s.
    func testUserLoginSuccessRememberMeAndBlock() async throws {
        let client = try await registered()
        for wrong: JSON in [["username": "", "password": ""], ["username": "john", "password": "jane"]] {
            let reply = try await client.preauthorize("UserLogin", ["UserLogin": wrong])
            XCTAssertEqual(reply.json?["challenges"]?["UserLogin"]?["errorMsg"], "Wrong Credentials")
        }
        let ok = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "john", "password": "john"]])
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["id"], "john")
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["authenticatedBy"], "UserLogin")
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["authenticatedAt"]?.numberValue, (clock.now.timeIntervalSince1970 * 1000).rounded())
        clock.advance(by: 59)
        let reply1 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply1.status, 200)
        clock.advance(by: 1)
        let reply2 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply2.status, 401, "a success lasts 60 s")

        let remembered = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "john", "password": "john", "rememberMe": true]])
        XCTAssertEqual(remembered.status, 200)
        clock.advance(by: 119)
        let reply3 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply3.status, 200)
        clock.advance(by: 1)
        let reply4 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply4.status, 401, "remember-me lasts 120 s")

        for _ in 0..<2 { _ = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "a", "password": "b"]]) }
        let blocked = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "a", "password": "b"]])
        XCTAssertEqual(blocked.json?["failures"]?["UserLogin"]?["blockedForSeconds"], 10)
        clock.advance(by: 10)
        let reply5 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply5.json?["challenges"]?["UserLogin"]?["remainingAttempts"], 3)
    }

    /// The code flow: authorization answers 302 with a one-time code; the token (scope RegisteredClient UserLogin, lasting no longer than the check) opens only its resources; resources answer a bare Bearer 401 without a token.
    func testCodeFlowGrantsAScopedToken() async throws {
        let client = try await registered()
        let early = try await client.code(scope: "UserLogin")
        XCTAssertEqual(early.reply.status, 401, "no code before the check is satisfied")
        _ = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "john", "password": "john"]])

        let (redirect, code) = try await client.code(scope: "UserLogin")
        XCTAssertEqual(redirect.status, 302)
        XCTAssertTrue(redirect.headers["location"]?.hasPrefix("https://app/cb?code=") == true)
        let grant = try XCTUnwrap(code)
        let token = try await client.token(code: grant, assertion: try client.assertion(at: clock.now, jti: grant, aud: "az/v1/token"))
        XCTAssertEqual(token.status, 200, token.text)
        XCTAssertEqual(token.json?["scope"], "RegisteredClient UserLogin")
        XCTAssertEqual(token.json?["expires_in"], 60, "no longer than the check's success")
        clock.advance(by: 1)  // a new assertion (the same one again would be a replay)
        let again = try await client.token(code: grant, assertion: try client.assertion(at: clock.now, jti: grant, aud: "az/v1/token"))
        XCTAssertEqual(again.json?["error"], "invalid_grant", "a code is used once")

        let bearer = "Bearer " + (token.json?["access_token"]?.stringValue ?? "")
        let protected = try await raw.send(.GET, "/mfp/protected", authorization: bearer)
        XCTAssertEqual(protected.json?["user"], "john")
        let registered = try await raw.send(.GET, "/mfp/registered", authorization: bearer)
        XCTAssertEqual(registered.status, 200, "RegisteredClient alone")
        let balance = try await raw.send(.GET, "/mfp/balance", authorization: bearer)
        XCTAssertEqual(balance.status, 403)
        XCTAssertEqual(balance.headers["www-authenticate"], #"Bearer error="insufficient_scope", scope="RegisteredClient PinCodeAttempts""#)
        let none = try await raw.send(.GET, "/mfp/transfer")
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.headers["www-authenticate"], "Bearer", "a bare Bearer challenge, as the Developer Center shows")
        let bogus = try await raw.send(.GET, "/mfp/protected", authorization: "Bearer bogus")
        XCTAssertEqual(bogus.headers["www-authenticate"], #"Bearer error="invalid_token""#)
    }

    /// Logout of a check (form, signed assertion) ends it for the client and revokes the tokens that depend on it; unknown clients get 400 INVALID_CLIENT_ID.
    func testLogoutAndUnknownClients() async throws {
        let client = try await registered()
        _ = try await client.preauthorize("UserLogin", ["UserLogin": ["username": "john", "password": "john"]])
        let authorized = try await client.code(scope: "UserLogin", redirectURI: "r")
        let grant = try XCTUnwrap(authorized.code)
        let token = try await client.token(code: grant, assertion: try client.assertion(at: clock.now, jti: grant, aud: "az/v1/token"), redirectURI: "r")
        let bearer = "Bearer " + (token.json?["access_token"]?.stringValue ?? "")
        let reply6 = try await raw.send(.GET, "/mfp/protected", authorization: bearer)
        XCTAssertEqual(reply6.status, 200)

        let logout = try await client.logout("UserLogin", assertion: try client.assertion(at: clock.now))
        XCTAssertEqual(logout.status, 200, logout.text)
        let reply7 = try await raw.send(.GET, "/mfp/protected", authorization: bearer)
        XCTAssertEqual(reply7.status, 401)
        let reply8 = try await client.preauthorize("UserLogin")
        XCTAssertEqual(reply8.status, 401)

        var nobody = client
        nobody.id = "nobody"
        let unknown = try await nobody.preauthorize("UserLogin")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(unknown.json, ["errorCode": "INVALID_CLIENT_ID", "errorMsg": "Unknown client; register again."])
        let unknownLogout = try await nobody.logout("UserLogin", assertion: try nobody.assertion(at: clock.now))
        XCTAssertEqual(unknownLogout.json?["errorCode"], "INVALID_CLIENT_ID")
        let reply9 = try await client.preauthorize("NoSuchCheck")
        XCTAssertEqual(reply9.json?["error"], "invalid_scope")
    }

    /// PUT registration/v1/self/{id}, signed by the registered key, replaces the data (200); another key is 403 "Invalid request."; an unknown id 400 INVALID_CLIENT_ID.
    func testReRegistrationNeedsTheRegisteredKey() async throws {
        let client = try await registered()
        let path = TestMobileFirstClient.runtime + "registration/v1/self/" + client.id
        let newData = TestMobileFirstClient.registrationData(hardware: "aarch64")
        let update = try await raw.post(path, json: try client.registrationBody(newData), method: .PUT)
        XCTAssertEqual(update.status, 200, update.text)
        XCTAssertEqual(backend.state.clients.data(of: client.id)?["device"]?["hardware"], "aarch64")

        let stranger = try TestMobileFirstClient(raw: raw)
        let hijack = try await raw.post(path, json: try stranger.registrationBody(TestMobileFirstClient.registrationData(hardware: "evil")), method: .PUT)
        XCTAssertEqual(hijack.status, 403)
        XCTAssertEqual(hijack.json?["errorCode"], "INVALID_REQUEST")
        XCTAssertTrue(hijack.json?["errorMsg"]?.stringValue?.hasPrefix("Invalid request.") == true)
        XCTAssertEqual(backend.state.clients.data(of: client.id)?["device"]?["hardware"], "aarch64", "nothing changed")

        let unknown = try await raw.post(TestMobileFirstClient.runtime + "registration/v1/self/nobody", json: try client.registrationBody(), method: .PUT)
        XCTAssertEqual(unknown.json?["errorCode"], "INVALID_CLIENT_ID")
        XCTAssertEqual(backend.statistics.registrationUpdates, 3)
    }

    /// The segments of the web SDK (standard base64, padded) and of RFC 7515 (unpadded base64url) register too.
    func testEveryClientEncodingRegisters() async throws {
        for encoding: IndependentJWS.Encoding in [.standard, .unpaddedURL, .paddedURL] {
            _ = try await TestMobileFirstClient(raw: raw).registered(encoding: encoding)
        }
        XCTAssertEqual(backend.statistics.registrations, 3)
    }
}
