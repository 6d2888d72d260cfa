import AsyncHTTPClient
@testable import CofferAuth
import CofferDevBackend
import XCTest

final class LogoutTests: AuthTestCase {

    /// Logout revokes the token (RFC 7009), so it no longer opens /protected, and deletes user, password and token.
    func testLogoutRevokesTheTokenAndDeletesEverything() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let headers = try await auth.authorizationHeaders()

        let report = try await auth.logout()
        XCTAssertTrue(report.revoked)
        XCTAssertTrue(report.removedStoredSession)
        XCTAssertNil(try fixture.keychain.data(for: "session"))
        let isAuthorized = await auth.isAuthorized
        XCTAssertFalse(isAuthorized)
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await auth.authorizationHeaders() }

        var request = HTTPClientRequest(url: fixture.backend.protectedURL.absoluteString)
        headers.apply(to: &request)
        let reply = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        XCTAssertEqual(reply.status.code, 401, "the revoked token is refused")
    }

    /// The token in memory and its stored copy are one token: it is revoked once (and the
    /// refresh token once), whatever the clock's fraction of a second (the stored dates lose
    /// their last bits in JSON, and the two copies once compared unequal, so logout revoked the
    /// same token twice).
    func testLogoutRevokesEachTokenOnce() async throws {
        fixture.clock.advance(by: 0.123456789)
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let report = try await auth.logout()
        XCTAssertTrue(report.revoked)
        XCTAssertEqual(fixture.backend.statistics.revocations, 2, "the refresh token, then the access token")
    }

    /// HTTP Basic logout deletes the stored user name and password, then ends the login at the backend.
    func testBasicLogoutDeletesTheCredentials() async throws {
        let auth = fixture.authorization(oauth: false)
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        XCTAssertNotNil(try fixture.storedSession()?.password)
        let report = try await auth.logout()
        XCTAssertFalse(report.revoked, "a Basic session has no token to revoke")
        XCTAssertTrue(report.loggedOutAtBackend, "GET /mobile/platform/users/logout")
        XCTAssertEqual(fixture.backend.statistics.userLogouts, 1)
        XCTAssertNil(try fixture.storedSession())
        let loaded = await fixture.authorization(oauth: false).loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }

    /// With the backend unreachable, logout still clears every local credential, then reports
    /// both revocation steps as failed after one wait.
    func testLogoutClearsLocallyWhenTheBackendIsUnreachable() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        fixture.backend.faults.inject(.hang, on: .revocation)

        await XCTAssertThrowsAuthError(matching: { error in
            guard case .logoutIncomplete(let failures) = error else { return false }
            // The refresh token's revocation waits out the deadline; the access token's is not tried again.
            return failures.map(\.step) == [.revokeRefreshToken, .revokeToken]
                && failures.allSatisfy { $0.reason == AuthError.timeout.description }
        }) { try await auth.logout() }
        XCTAssertNil(try fixture.keychain.data(for: "session"))
        let loaded = await fixture.authorization().loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }

    /// A failed revocation reply (5xx) is reported as the failed step, after the local session is gone.
    func testFailedRevocationIsReported() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        fixture.backend.faults.inject(.status(503), on: .revocation)
        await XCTAssertThrowsAuthError(.logoutIncomplete([LogoutFailure(step: .revokeRefreshToken, reason: "the backend answered HTTP 503")])) {
            try await auth.logout()
        }
        XCTAssertNil(try fixture.storedSession())
    }

    /// With the keychain locked, logout still ends the session in memory and names the storage step as failed.
    func testLockedKeychainIsReportedAndTheSessionEndsInMemory() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        fixture.vault.lock()
        await XCTAssertThrowsAuthError(matching: { error in
            guard case .logoutIncomplete(let failures) = error else { return false }
            return failures.map(\.step) == [.removeStoredSession]
        }) { try await auth.logout() }
        let isAuthorized = await auth.isAuthorized
        XCTAssertFalse(isAuthorized)
    }

    /// `clearCredentials: false` keeps only the user name: no password, no token, not authorized after a restart.
    func testLogoutKeepingTheUserNameDropsPasswordAndToken() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let report = try await auth.logout(clearCredentials: false)
        XCTAssertTrue(report.keptUserName)
        let stored = try XCTUnwrap(try fixture.storedSession())
        XCTAssertEqual(stored.userName, AuthFixture.user.name)
        XCTAssertNil(stored.password)
        XCTAssertNil(stored.token)
        let restarted = fixture.authorization()
        let loaded = await restarted.loadSSOTokenExchange()
        XCTAssertFalse(loaded)
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await restarted.authorizationHeaders() }
    }
}
