import CofferTestSupport
import CofferAuth
@testable import CofferDevBackend
import Foundation
import XCTest

/// The dev backend's MobileFirst runtime over loopback: registration, preauthorize, the code flow, logout and the resources.
final class MobileFirstRoutesTests: XCTestCase {
    var backend: DevBackend!
    let clock = TestClock()
    var client: RawClient { RawClient(backend: backend) }

    override func setUp() async throws {
        let clock = self.clock
        backend = try await DevBackend.start(DevBackend.Configuration(now: { clock.now }, logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }

    private func path(_ endpoint: String) -> String { "/mfp/" + endpoint }

    /// Registers a client; returns its id and its HTTP Basic authorization.
    private func register() async throws -> (id: String, basic: String) {
        let reply = try await client.post(path(MobileFirstPath.registration), json: ["application": ["id": "tests", "version": "1"]])
        XCTAssertEqual(reply.status, 201)
        let id = try XCTUnwrap(reply.json?["client_id"]?.stringValue)
        let secret = try XCTUnwrap(reply.json?["client_secret"]?.stringValue)
        return (id, BasicCredentials(user: id, password: secret).headerValue)
    }

    private func preauthorize(_ id: String, _ scope: String, _ answers: [String: JSONValue]? = nil) async throws -> RawClient.Reply {
        var body: [String: JSONValue] = ["client_id": .string(id), "scope": .string(scope)]
        if let answers { body["challengeResponse"] = .object(answers) }
        return try await client.post(path(MobileFirstPath.preauthorize), json: .object(body))
    }

    /// PinCodeAttempts: 401 MFP-Challenge with remainingAttempts 3, 2, 1 and errorMsg; the third wrong PIN gives 403 "Account blocked" for 60 s by the clock.
    func testPinCodeCountsAttemptsAndBlocksFor60Seconds() async throws {
        let (id, _) = try await register()
        let first = try await preauthorize(id, "PinCodeAttempts")
        XCTAssertEqual(first.status, 401)
        XCTAssertEqual(first.headers["www-authenticate"], "MFP-Challenge")
        XCTAssertEqual(first.json?["challenges"]?["PinCodeAttempts"], ["errorMsg": .null, "remainingAttempts": 3])
        for remaining in [2, 1] {
            let wrong = try await preauthorize(id, "PinCodeAttempts", ["PinCodeAttempts": ["pin": "0000"]])
            XCTAssertEqual(wrong.json?["challenges"]?["PinCodeAttempts"], ["errorMsg": "Pin code is not valid.", "remainingAttempts": .number(Double(remaining))])
        }
        let blocked = try await preauthorize(id, "PinCodeAttempts", ["PinCodeAttempts": ["pin": "0000"]])
        XCTAssertEqual(blocked.status, 403)
        XCTAssertEqual(blocked.json?["failures"]?["PinCodeAttempts"], ["failure": "Account blocked", "blockedForSeconds": 60])

        clock.advance(by: 59)
        let stillBlocked = try await preauthorize(id, "PinCodeAttempts", ["PinCodeAttempts": ["pin": "1234"]])
        XCTAssertEqual(stillBlocked.json?["failures"]?["PinCodeAttempts"]?["blockedForSeconds"], 1, "even the right PIN is refused while blocked")
        clock.advance(by: 1)
        let open = try await preauthorize(id, "PinCodeAttempts", ["PinCodeAttempts": ["pin": "1234"]])
        XCTAssertEqual(open.status, 200)
        XCTAssertEqual(open.json?["successes"]?["PinCodeAttempts"], [:])
    }

    /// UserLogin: the name must equal the password (non-empty); a success lasts 60 s, with rememberMe 120 s; three wrong answers block for 10 s.
    func testUserLoginSuccessRememberMeAndBlock() async throws {
        let (id, _) = try await register()
        for wrong: JSONValue in [["username": "", "password": ""], ["username": "john", "password": "jane"]] {
            let reply = try await preauthorize(id, "UserLogin", ["UserLogin": wrong])
            XCTAssertEqual(reply.json?["challenges"]?["UserLogin"]?["errorMsg"], "Wrong Credentials")
        }
        let ok = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "john", "password": "john"]])
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["id"], "john")
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["authenticatedBy"], "UserLogin")
        XCTAssertEqual(ok.json?["successes"]?["UserLogin"]?["user"]?["authenticatedAt"]?.numberValue, (clock.now.timeIntervalSince1970 * 1000).rounded())
        clock.advance(by: 59)
        let reply1 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply1.status, 200)
        clock.advance(by: 1)
        let reply2 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply2.status, 401, "a success lasts 60 s")

        let remembered = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "john", "password": "john", "rememberMe": true]])
        XCTAssertEqual(remembered.status, 200)
        clock.advance(by: 119)
        let reply3 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply3.status, 200)
        clock.advance(by: 1)
        let reply4 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply4.status, 401, "remember-me lasts 120 s")

        for _ in 0..<2 { _ = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "a", "password": "b"]]) }
        let blocked = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "a", "password": "b"]])
        XCTAssertEqual(blocked.json?["failures"]?["UserLogin"]?["blockedForSeconds"], 10)
        clock.advance(by: 10)
        let reply5 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply5.json?["challenges"]?["UserLogin"]?["remainingAttempts"], 3)
    }

    /// The code flow: authorization answers 302 with a one-time code; the token (scope UserLogin, lasting no longer than the check) opens only its resources.
    func testCodeFlowGrantsAScopedToken() async throws {
        let (id, basic) = try await register()
        let authorize = path(MobileFirstPath.authorization) + "?response_type=code&client_id=\(id)&redirect_uri=https%3A%2F%2Fapp%2Fcb&scope=UserLogin"
        let early = try await client.send(.GET, authorize, backendID: nil)
        XCTAssertEqual(early.status, 401, "no code before the check is satisfied")
        _ = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "john", "password": "john"]])

        let redirect = try await client.send(.GET, authorize, backendID: nil)
        XCTAssertEqual(redirect.status, 302)
        let location = try XCTUnwrap(redirect.headers["location"])
        XCTAssertTrue(location.hasPrefix("https://app/cb?code="), location)
        let code = String(location.dropFirst("https://app/cb?code=".count))
        let form = "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fapp%2Fcb"
        let token = try await client.send(.POST, path(MobileFirstPath.token), authorization: basic, backendID: nil, form: form)
        XCTAssertEqual(token.status, 200)
        XCTAssertEqual(token.json?["scope"], "UserLogin")
        XCTAssertEqual(token.json?["expires_in"], 60, "no longer than the check's success")
        let again = try await client.send(.POST, path(MobileFirstPath.token), authorization: basic, backendID: nil, form: form)
        XCTAssertEqual(again.json?["error"], "invalid_grant", "a code is used once")

        let bearer = "Bearer " + (token.json?["access_token"]?.stringValue ?? "")
        let protected = try await client.send(.GET, path("protected"), authorization: bearer)
        XCTAssertEqual(protected.json?["user"], "john")
        let balance = try await client.send(.GET, path("balance"), authorization: bearer)
        XCTAssertEqual(balance.status, 403)
        XCTAssertEqual(balance.headers["www-authenticate"], #"Bearer error="insufficient_scope", scope="PinCodeAttempts""#)
        let none = try await client.send(.GET, path("transfer"))
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.headers["www-authenticate"], #"Bearer scope="UserLogin PinCodeAttempts""#)
        let bogus = try await client.send(.GET, path("protected"), authorization: "Bearer bogus")
        XCTAssertEqual(bogus.headers["www-authenticate"], #"Bearer error="invalid_token", scope="UserLogin""#)
        let wrongSecret = try await client.send(
            .POST, path(MobileFirstPath.token), authorization: BasicCredentials(user: id, password: "x").headerValue, backendID: nil, form: form)
        XCTAssertEqual(wrongSecret.status, 401)
    }

    /// Logout of a check ends it for the client and revokes the tokens that depend on it; unknown clients get 400 invalid_client.
    func testLogoutAndUnknownClients() async throws {
        let (id, basic) = try await register()
        _ = try await preauthorize(id, "UserLogin", ["UserLogin": ["username": "john", "password": "john"]])
        let redirect = try await client.send(.GET, path(MobileFirstPath.authorization) + "?response_type=code&client_id=\(id)&redirect_uri=r&scope=UserLogin", backendID: nil)
        let code = try XCTUnwrap(redirect.headers["location"]?.components(separatedBy: "code=").last)
        let token = try await client.send(.POST, path(MobileFirstPath.token), authorization: basic, backendID: nil,
                                          form: "grant_type=authorization_code&code=\(code)&redirect_uri=r")
        let bearer = "Bearer " + (token.json?["access_token"]?.stringValue ?? "")
        let reply6 = try await client.send(.GET, path("protected"), authorization: bearer)
        XCTAssertEqual(reply6.status, 200)

        let logout = try await client.post(path(MobileFirstPath.logout), json: ["client_id": .string(id), "security_check": "UserLogin"])
        XCTAssertEqual(logout.status, 200)
        let reply7 = try await client.send(.GET, path("protected"), authorization: bearer)
        XCTAssertEqual(reply7.status, 401)
        let reply8 = try await preauthorize(id, "UserLogin")
        XCTAssertEqual(reply8.status, 401)

        let unknown = try await preauthorize("nobody", "UserLogin")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(unknown.json?["error"], "invalid_client")
        let reply9 = try await preauthorize(id, "NoSuchCheck")
        XCTAssertEqual(reply9.json?["error"], "invalid_scope")
    }
}
