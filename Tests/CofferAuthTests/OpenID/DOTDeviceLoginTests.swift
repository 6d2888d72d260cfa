@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// Device logins (RFC 8628) against django-oauth-toolkit, answered on DOT's own pages. The
/// client's waits are recorded (``SleepScript``) rather than waited, and the user's answer is
/// given during one of them, so every outcome is reached in a fixed number of polls.
final class DOTDeviceLoginTests: XCTestCase {
    var server: OIDCTestServer!
    var fixture: DOTFixture!

    override func setUp() async throws {
        server = try OIDCTestServer.shared(.interop)
        fixture = try DOTFixture(server: server)
    }

    /// Stock discovery has no device endpoint, so the app names it. The first poll is
    /// `authorization_pending`; the user approves during the second wait; the second poll gets
    /// the tokens. DOT's device reply has no ID token, so the identity comes from UserInfo.
    func testApprovedDeviceLogin() async throws {
        let script = SleepScript()
        let client = fixture.client(try await fixture.discoverWithDOTEndpoints(), clientID: server.clients.device, sleep: script.sleep)
        let login = try await client.startDeviceLogin()
        let authorization = login.authorization
        XCTAssertEqual(authorization.verificationURI, server.deviceVerificationURI)
        XCTAssertEqual(authorization.verificationURIComplete?.query, "user_code=\(authorization.userCode)")
        let server = self.server!
        script.onSleep { count in
            if count == 2 { try await server.answerDeviceLogin(userCode: authorization.userCode, verificationURIComplete: authorization.verificationURIComplete) }
        }
        let identity = try await login.complete()

        XCTAssertEqual(script.durations, [.seconds(1), .seconds(1)], "DOT's interval, once pending, then approved")
        XCTAssertEqual(identity.preferredUsername, "coffer")
        XCTAssertEqual(identity.id, "1")
        let session = try XCTUnwrap(try fixture.storedSession(client))
        XCTAssertNotNil(session.refreshToken)
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
        let token = try await client.accessToken()
        let userinfo = try await server.userinfo(accessToken: token.value)
        XCTAssertEqual(userinfo.status, 200)

        // DOT's refresh of a device login does return an ID token: verified (no nonce), same user.
        fixture.clock.advance(by: 2 * 3600)
        let refreshed = try await client.accessToken()
        XCTAssertTrue(refreshed.value != token.value, "a new token")
        let identityAfterRefresh = try await client.user
        XCTAssertEqual(identityAfterRefresh?.id, "1")
        XCTAssertEqual(identityAfterRefresh?.preferredUsername, "coffer")
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
    }

    /// The user denies: the next poll is `access_denied`, nothing is stored.
    func testDeniedDeviceLogin() async throws {
        let script = SleepScript()
        let client = fixture.client(try await fixture.discoverWithDOTEndpoints(), clientID: server.clients.device, sleep: script.sleep)
        let login = try await client.startDeviceLogin()
        let authorization = login.authorization
        let server = self.server!
        script.onSleep { count in
            if count == 2 {
                try await server.answerDeviceLogin(
                    userCode: authorization.userCode, verificationURIComplete: authorization.verificationURIComplete, approve: false)
            }
        }
        await XCTAssertThrowsAuthError(.accessDenied) { try await login.complete() }
        XCTAssertEqual(script.durations.count, 2)
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
    }

    /// The code expires (DOT's state set by the test hook): the next poll is `expired_token`.
    func testExpiredDeviceCode() async throws {
        let script = SleepScript()
        let client = fixture.client(try await fixture.discoverWithDOTEndpoints(), clientID: server.clients.device, sleep: script.sleep)
        let login = try await client.startDeviceLogin()
        let userCode = login.authorization.userCode
        let server = self.server!
        script.onSleep { count in
            if count == 2 { try await server.expireDeviceCode(userCode: userCode) }
        }
        await XCTAssertThrowsAuthError(.deviceCodeExpired) { try await login.complete() }
        XCTAssertEqual(script.durations.count, 2)
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
    }

    /// Polling faster than the interval gets `slow_down` (the harness's shim, `--slow-down`:
    /// DOT itself never sends it): the client adds 5 s to its interval each time, and keeps
    /// polling. Here the waits are not waited, so every poll after the first is too fast; the
    /// fourth wait cancels the login.
    func testSlowDownAddsFiveSeconds() async throws {
        let server = try OIDCTestServer.shared(OIDCTestServer.Options(slowDown: true, deviceInterval: 5))
        let fixture = try DOTFixture(server: server)
        let script = SleepScript()
        let client = fixture.client(try await fixture.discoverWithDOTEndpoints(), clientID: server.clients.device, sleep: script.sleep)
        let login = try await client.startDeviceLogin()
        script.onSleep { count in
            if count == 4 { throw CancellationError() }
        }
        await XCTAssertThrowsAuthError(.cancelled) { try await login.complete() }
        // Poll 1: pending; polls 2 and 3: slow_down.
        XCTAssertEqual(script.durations, [.seconds(5), .seconds(5), .seconds(10), .seconds(15)])
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
    }
}
