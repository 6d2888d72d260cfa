import Coffer
import CofferTestSupport
@testable import CofferAuth
import CofferDevBackend
import Foundation
import XCTest

/// The mobile-backend facade keeps a refresh token, never the password, and renews with it.
final class RefreshTokenTests: AuthTestCase {
    let locks = TemporaryFolder()

    private func authorization(_ configure: (inout Authorization.Configuration) -> Void = { _ in }) -> Authorization {
        fixture.authorization { configuration in
            configuration.lockFolder = self.locks.url
            configure(&configuration)
        }
    }


    /// An expired token renews with the refresh grant: one request, the rotated refresh token
    /// stored before the token is used, and no password anywhere in the store.
    func testAnExpiredTokenRenewsWithTheRefreshToken() async throws {
        let auth = authorization()
        try await fixture.logIn(auth)
        let first = try XCTUnwrap(try fixture.storedSession()?.refreshToken)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(fixture.backend.statistics.refreshRequests, 1)
        let rotated = try XCTUnwrap(try fixture.storedSession()?.refreshToken)
        XCTAssertNotEqual(rotated, first, "the rotated refresh token is stored")
        try assertNoPasswordStored(AuthFixture.user.password, in: fixture.vault)
    }

    /// `invalid_grant` on refresh clears the session and throws reauthenticationRequired; the
    /// app hears of it.
    func testARefusedRefreshTokenEndsTheSession() async throws {
        let auth = authorization()
        try await fixture.logIn(auth)
        let events = auth.events()
        fixture.backend.openIDFaults.arm(.refreshInvalidGrant)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        await XCTAssertThrowsAuthError(.reauthenticationRequired) { try await auth.get(self.fixture.backend.protectedURL) }
        XCTAssertNil(try fixture.storedSession())
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        XCTAssertEqual(event, .reauthenticationRequired)
    }

    /// A refresh refused with a bare 400 or 401 (no RFC 6749 error body) ends the session as
    /// `invalid_grant` does; a 5xx does not.
    func testARefreshRefusedWithAnEmptyBodyEndsTheSession() async throws {
        for status in [400, 401] {
            let auth = authorization()
            try await fixture.logIn(auth)
            fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
            fixture.backend.faults.inject(.reply(status: 502, body: "", contentType: nil), on: .token)
            await XCTAssertThrowsAuthError(.serverError(status: 502)) { try await auth.get(self.fixture.backend.protectedURL) }
            XCTAssertNotNil(try fixture.storedSession(), "a 502 keeps the session")
            let events = auth.events()
            fixture.backend.faults.inject(.reply(status: status, body: "", contentType: nil), on: .token)
            await XCTAssertThrowsAuthError(.reauthenticationRequired) { try await auth.get(self.fixture.backend.protectedURL) }
            XCTAssertNil(try fixture.storedSession(), "HTTP \(status): the session is cleared")
            var iterator = events.makeAsyncIterator()
            let event = await iterator.next()
            XCTAssertEqual(event, .reauthenticationRequired)
        }
    }

    /// A network failure during a refresh is a transient error and keeps the session.
    func testTheServerDownDuringARefreshKeepsTheSession() async throws {
        let auth = authorization()
        try await fixture.logIn(auth)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        fixture.backend.faults.inject(.status(503), on: .token)
        await XCTAssertThrowsAuthError(.serverError(status: 503)) { try await auth.get(self.fixture.backend.protectedURL) }
        XCTAssertNotNil(try fixture.storedSession()?.refreshToken)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200, "the next call renews")
    }

    /// A session stored by an earlier Coffer (format 1, with the password) still loads; it renews
    /// once with the password grant, and the password is dropped as soon as a refresh token is held.
    func testALegacySessionWithAPasswordLoadsAndDropsIt() async throws {
        let backend = fixture.backend.mobileBackend()
        let legacy: JSONValue = [
            "format": 1, "binding": ["baseURL": .string(backend.baseURL.absoluteString), "backendID": .string(backend.backendID)],
            "method": "oauth", "userName": .string(AuthFixture.user.name), "password": .string(AuthFixture.user.password),
        ]
        try fixture.keychain.set(Data(legacy.compactJSON), for: "session")
        let auth = authorization()
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        let stored = try XCTUnwrap(try fixture.storedSession())
        XCTAssertNil(stored.password)
        XCTAssertNotNil(stored.refreshToken)
        XCTAssertEqual(stored.format, 2)
    }

    /// A backend that gives no refresh token: the password is not kept, so the session ends
    /// with its token; only the opt-in keeps it, and then it renews.
    func testKeepingThePasswordIsAnOptIn() async throws {
        await fixture.stop()
        fixture = try await AuthFixture.start { $0.passwordGrantIssuesRefreshTokens = false }
        let plain = authorization()
        try await fixture.logIn(plain)
        XCTAssertNil(try fixture.storedSession()?.password)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        await XCTAssertThrowsAuthError(.tokenExpired) { try await plain.get(self.fixture.backend.protectedURL) }

        let keeping = authorization { $0.keepsPasswordWithoutRefreshToken = true }
        try await fixture.logIn(keeping)
        XCTAssertEqual(try fixture.storedSession()?.password, AuthFixture.user.password)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let reply = try await keeping.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
    }

    /// Two facades (as two processes would) with an expired token renew once between them: the
    /// second finds the first one's token when it gets the lock, so the rotated refresh token is
    /// never spent twice (which the backend would take for reuse and end the family).
    func testTwoFacadesRenewOnceBetweenThem() async throws {
        try await fixture.logIn(authorization())
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let first = authorization(), second = authorization()
        let url = fixture.backend.protectedURL
        async let one = first.get(url)
        async let two = second.get(url)
        let statuses = try await [one.status, two.status]
        XCTAssertEqual(statuses, [200, 200])
        XCTAssertEqual(fixture.backend.statistics.refreshRequests, 1)
        XCTAssertEqual(fixture.backend.statistics.refreshReuses, 0)
    }

    /// A logout by another facade (another process) while a renewal is in flight, the refresh
    /// token already rotated at the backend: the logout waits for the renewal to store the
    /// rotated session, then removes and revokes it, and nothing is left stored. (A regression:
    /// the renewal wrote the session back after the logout had removed it.)
    func testALogoutDuringAnotherFacadesRenewalLeavesNoSessionBehind() async throws {
        let renewal = try await renewalWithItsReplyHeldBack().task
        _ = try await authorization().logout()
        _ = try? await renewal.value
        XCTAssertNil(try fixture.storedSession(), "the renewal did not write the session back")
        XCTAssertEqual(fixture.backend.statistics.revokedKinds.first, "refresh")
    }

    /// A new login by another facade while a renewal of the old session is in flight: the
    /// renewal stores first, and the new login is the one kept. (A regression: the renewal wrote
    /// the old session over the new login.)
    func testALoginDuringAnotherFacadesRenewalIsNotWrittenOver() async throws {
        let renewal = try await renewalWithItsReplyHeldBack().task
        let other = authorization()
        try await fixture.logIn(other)
        _ = try? await renewal.value
        let stored = try XCTUnwrap(try fixture.storedSession())
        let newLogin = try await other.authorizationValue()
        XCTAssertEqual(stored.token?.headerValue, newLogin, "the new login is the one stored")
    }

    /// A new login on the facade whose renewal of the old session is in flight: the renewal
    /// stores first, and the login is not lost to it: it succeeds, and is the session stored.
    /// (A regression of the session lock: the login waited for the renewal, whose end counted
    /// as a change of login, and was cancelled.)
    func testALoginWhileTheSameFacadeRenewsIsNotCancelled() async throws {
        let (renewal, facade) = try await renewalWithItsReplyHeldBack()
        try await fixture.logIn(facade)
        _ = try? await renewal.value
        let stored = try XCTUnwrap(try fixture.storedSession())
        let current = try await facade.authorizationValue()
        XCTAssertEqual(stored.token?.headerValue, current, "the new login is the one stored and current")
    }

    /// A facade's renewal of an expired login, once the backend has rotated the refresh token
    /// and holds its reply back for a second. It asks for the token alone, no resource: a
    /// refused request would renew again and end the session another way.
    private func renewalWithItsReplyHeldBack() async throws -> (task: Task<String, any Error>, facade: Authorization) {
        let renewing = authorization()
        try await fixture.logIn(renewing)
        return (await fixture.refreshWithItsReplyHeldBack { try await renewing.authorizationValue() }, renewing)
    }
}
