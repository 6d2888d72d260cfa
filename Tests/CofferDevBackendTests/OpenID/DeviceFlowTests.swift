@testable import CofferDevBackend
import XCTest

final class DeviceFlowTests: OpenIDTestCase {
    /// The device authorization reply (RFC 8628 §3.2), then pending, approval through the test
    /// endpoint, the tokens (an ID token without nonce), and a spent device code.
    func testDeviceFlowApproved() async throws {
        let start = try await flow.startDevice()
        XCTAssertEqual(start.status, 200)
        let json = try XCTUnwrap(start.json)
        let deviceCode = try XCTUnwrap(json["device_code"]?.stringValue)
        let userCode = try XCTUnwrap(json["user_code"]?.stringValue)
        XCTAssertNotNil(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/), userCode)
        let verification = backend.baseURL.absoluteString + "/oidc/device/verify"
        XCTAssertEqual(json["verification_uri"]?.stringValue, verification)
        XCTAssertEqual(json["verification_uri_complete"]?.stringValue, verification + "?user_code=" + userCode)
        XCTAssertEqual(json["expires_in"]?.intValue, 600)
        XCTAssertEqual(json["interval"]?.intValue, 0)

        let pending = try await flow.poll(deviceCode)
        XCTAssertEqual(pending.status, 400)
        XCTAssertEqual(pending.json?["error"]?.stringValue, "authorization_pending")

        let approved = try await approve(userCode.lowercased().replacingOccurrences(of: "-", with: ""), user: "demo")
        XCTAssertEqual(approved.status, 200)
        XCTAssertEqual(approved.json?["result"]?.stringValue, "approved")
        let again = try await approve(userCode, user: "demo")
        XCTAssertEqual(again.status, 409)

        let tokens = try await flow.poll(deviceCode)
        XCTAssertEqual(tokens.status, 200, "\(String(describing: tokens.json))")
        XCTAssertEqual(tokens.json?["scope"]?.stringValue, "openid profile")
        XCTAssertNotNil(tokens.json?["refresh_token"]?.stringValue)
        let claims = try await flow.verify(try XCTUnwrap(tokens.json?["id_token"]?.stringValue))
        XCTAssertNil(claims.nonce)
        XCTAssertEqual(claims.sub.value, DevIdentity.subject(of: "demo"))
        let spent = try await flow.poll(deviceCode)
        XCTAssertEqual(spent.json?["error"]?.stringValue, "invalid_grant")
        XCTAssertEqual(backend.statistics.devicePolls, 3)
        XCTAssertEqual(backend.statistics.deviceAuthorizations, 1)

        let refreshed = try await flow.refresh(try XCTUnwrap(tokens.json?["refresh_token"]?.stringValue))
        XCTAssertEqual(refreshed.status, 200)
    }

    /// Denied → access_denied; expired by the injected clock → expired_token; another client's
    /// or an unknown code → invalid_grant.
    func testDeniedExpiredAndUnknown() async throws {
        let denied = try await flow.startDevice().object()
        let deny = try await client.send(.POST, "/oidc/device/approve", backendID: nil, form: URLForm.encode([
            ("user_code", denied["user_code"]?.stringValue ?? ""), ("deny", "1"),
        ]))
        XCTAssertEqual(deny.json?["result"]?.stringValue, "denied")
        let deniedPoll = try await flow.poll(denied["device_code"]?.stringValue ?? "")
        XCTAssertEqual(deniedPoll.json?["error"]?.stringValue, "access_denied")

        let expiring = try await flow.startDevice().object()
        let deviceCode = expiring["device_code"]?.stringValue ?? ""
        clock.advance(by: 599)
        let stillPending = try await flow.poll(deviceCode)
        XCTAssertEqual(stillPending.json?["error"]?.stringValue, "authorization_pending")
        clock.advance(by: 1)
        let expired = try await flow.poll(deviceCode)
        XCTAssertEqual(expired.json?["error"]?.stringValue, "expired_token")
        let late = try await approve(expiring["user_code"]?.stringValue ?? "", user: "demo")
        XCTAssertEqual(late.status, 400)
        XCTAssertFalse(backend.approveDeviceLogin(userCode: expiring["user_code"]?.stringValue ?? "", as: "demo"))

        let other = try await flow.startDevice().object()
        let wrongClient = try await flow.poll(
            other["device_code"]?.stringValue ?? "", clientID: OpenIDFlow.confidential.id)
        XCTAssertEqual(wrongClient.status, 401, "the confidential client must authenticate")
        let unknown = try await flow.poll("nope")
        XCTAssertEqual(unknown.json?["error"]?.stringValue, "invalid_grant")
        let unknownCode = try await approve("BCDF-GHJK", user: "demo")
        XCTAssertEqual(unknownCode.status, 404)
    }

    /// Polling sooner than the interval gets slow_down, and the interval grows by 5 s (§3.5).
    func testSlowDownWhenPolledTooFast() async throws {
        try await restart { $0.openID.deviceInterval = 2 }
        let start = try await flow.startDevice().object()
        XCTAssertEqual(start["interval"]?.intValue, 2)
        let deviceCode = start["device_code"]?.stringValue ?? ""
        let first = try await flow.poll(deviceCode)
        XCTAssertEqual(first.json?["error"]?.stringValue, "authorization_pending")
        clock.advance(by: 1)
        let tooSoon = try await flow.poll(deviceCode)
        XCTAssertEqual(tooSoon.json?["error"]?.stringValue, "slow_down")
        clock.advance(by: 7)
        let waited = try await flow.poll(deviceCode)
        XCTAssertEqual(waited.json?["error"]?.stringValue, "authorization_pending", "the interval is now 7 s")
        clock.advance(by: 6)
        let again = try await flow.poll(deviceCode)
        XCTAssertEqual(again.json?["error"]?.stringValue, "slow_down")
        clock.advance(by: 12)
        let ok = try await flow.poll(deviceCode)
        XCTAssertEqual(ok.json?["error"]?.stringValue, "authorization_pending", "the interval is now 12 s")
    }

    /// The page a person uses: GET shows the form with the code filled in, a wrong password is
    /// refused, the right one approves; the approval endpoint is absent unless switched on.
    func testVerificationPageAndSwitch() async throws {
        try await restart { $0.openID.deviceApprovalEndpoint = false }
        let start = try await flow.startDevice(scope: "openid email").object()
        let userCode = start["user_code"]?.stringValue ?? ""
        let page = try await client.send(.GET, "/oidc/device/verify?user_code=\(userCode)", backendID: nil)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains(#"name="user_code" value="\#(userCode)""#), page.text)
        let approveEndpoint = try await approve(userCode, user: "demo")
        XCTAssertEqual(approveEndpoint.status, 404)

        func submit(_ fields: [(String, String)]) async throws -> RawClient.Reply {
            try await client.send(.POST, "/oidc/device/verify", backendID: nil, form: URLForm.encode(fields))
        }
        let wrong = try await submit([("user_code", userCode), ("username", "demo"), ("password", "x"), ("action", "allow")])
        XCTAssertEqual(wrong.status, 401)
        let right = try await submit([("user_code", userCode), ("username", "demo"), ("password", "demo-password"), ("action", "allow")])
        XCTAssertEqual(right.status, 200)
        XCTAssertTrue(right.text.contains("The device is signed in."), right.text)
        let tokens = try await flow.poll(start["device_code"]?.stringValue ?? "")
        XCTAssertEqual(tokens.status, 200)
        let claims = try await flow.verify(try XCTUnwrap(tokens.json?["id_token"]?.stringValue))
        XCTAssertEqual(claims.email, "demo@example.test")
        XCTAssertNil(claims.preferred_username, "no profile scope")
        let used = try await submit([("user_code", userCode), ("action", "deny")])
        XCTAssertEqual(used.status, 400)

        let second = try await flow.startDevice().object()
        let deny = try await submit([("user_code", second["user_code"]?.stringValue ?? ""), ("action", "deny")])
        XCTAssertTrue(deny.text.contains("The device was denied."))
        let third = try await flow.startDevice().object()
        XCTAssertTrue(backend.approveDeviceLogin(userCode: third["user_code"]?.stringValue ?? "", as: "demo"))
        let approved = try await flow.poll(third["device_code"]?.stringValue ?? "")
        XCTAssertEqual(approved.status, 200)
    }

    /// Only OpenID clients start device logins; unknown scopes are refused.
    func testDeviceAuthorizationRefusals() async throws {
        let oauthClient = try await client.send(.POST, "/oidc/device", authorization: RawClient.clientAuthorization, backendID: nil, form: "scope=openid")
        XCTAssertEqual(oauthClient.status, 401)
        let unknown = try await flow.startDevice(clientID: "nobody")
        XCTAssertEqual(unknown.status, 401)
        let scope = try await flow.startDevice(scope: "openid admin")
        XCTAssertEqual(scope.json?["error"]?.stringValue, "invalid_scope")
    }

    private func approve(_ userCode: String, user: String) async throws -> RawClient.Reply {
        try await client.send(.POST, "/oidc/device/approve", backendID: nil, form: URLForm.encode([("user_code", userCode), ("user", user)]))
    }
}
