@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import XCTest

/// `AuthorizationManager`: preemptive login, obtainAccessToken, logout and isChallenged, against the `UserLogin` check.
final class AuthorizationManagerTests: ChallengeTestCase {
    static let login = MobileFirstConfiguration.userLoginCheck

    /// Preemptive login with isChallenged false: no challenge, handleSuccess gets the user, and the next request is not challenged.
    func testPreemptiveLoginWhileNotChallenged() async throws {
        let (client, handler) = client(handling: Self.login, .manual)
        let manager = client.authorizationManager
        XCTAssertFalse(handler.isChallenged)
        XCTAssertFalse(manager.isChallenged(securityCheck: Self.login))

        try await manager.login(securityCheck: Self.login, credentials: Self.john)
        await eventually("handleSuccess was called") { handler.successes.count == 1 }
        let user = try XCTUnwrap(handler.successes.first.flatMap(AuthenticatedUser.init(success:)))
        XCTAssertEqual(user.id, "john")
        XCTAssertEqual(user.displayName, "john")
        XCTAssertEqual(user.authenticatedBy, Self.login)
        XCTAssertEqual(user.authenticatedAt?.timeIntervalSince1970 ?? 0, fixture.clock.now.timeIntervalSince1970, accuracy: 0.002)
        let identity = await manager.userIdentity
        XCTAssertEqual(identity?.id, "john")

        let reply = try await resource("protected").send(using: client)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, "john")
        XCTAssertTrue(handler.challenges.isEmpty, "a logged-in client is not challenged")
    }

    /// A wrong preemptive login challenges the check (isChallenged true); submitChallengeAnswer then completes the login.
    func testSubmitChallengeAnswerWhileChallengedCompletesTheLogin() async throws {
        let (client, handler) = client(handling: Self.login, .manual)
        let manager = client.authorizationManager

        let (check, wrong): (String, JSONValue) = (Self.login, ["username": "john", "password": "jane"])
        let login = Task { try await manager.login(securityCheck: check, credentials: wrong) }
        let challenge = await handler.challenge()
        XCTAssertEqual(challenge?["errorMsg"]?.stringValue, "Wrong Credentials")
        XCTAssertEqual(challenge?["remainingAttempts"]?.intValue, 2)
        XCTAssertTrue(handler.isChallenged)
        XCTAssertTrue(manager.isChallenged(securityCheck: Self.login))

        XCTAssertTrue(handler.submitChallengeAnswer(Self.john))
        try await login.value
        XCTAssertFalse(handler.isChallenged)
        await eventually("handleSuccess was called") { handler.successes.count == 1 }
    }

    /// login() while the check is challenged answers that challenge: the waiting request completes, with one prompt.
    func testLoginWhileChallengedAnswersTheOpenChallenge() async throws {
        let (client, handler) = client(handling: Self.login, .manual)
        let protected = resource("protected")
        let request = Task { try await protected.send(using: client) }
        await handler.challenge()

        try await client.authorizationManager.login(securityCheck: Self.login, credentials: Self.john)
        let status1 = try await request.value.status
        XCTAssertEqual(status1, 200)
        XCTAssertEqual(handler.challenges.count, 1)
    }

    /// obtainAccessToken answers the challenge, calls handleSuccess, stores the token before returning, and reuses it until it expires.
    func testObtainAccessTokenIsStoredAndReusedUntilItExpires() async throws {
        let (client, handler) = client(handling: Self.login, .answers([Self.john, Self.john]))
        let manager = client.authorizationManager

        let token = try await manager.obtainAccessToken(scope: Self.login)
        let stored = try XCTUnwrap(try fixture.storedChallengeSession(of: client))
        XCTAssertEqual(stored.tokens.map(\.token.value), [token.value], "stored before it was returned")
        XCTAssertEqual(stored.tokens.first?.token.expiresAt.timeIntervalSince1970 ?? 0, token.expiresAt.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertNotNil(stored.registration)
        XCTAssertEqual(stored.user?.id, "john")
        await eventually("handleSuccess was called") { handler.successes.count == 1 }

        let exchanges = fixture.backend.statistics.codeExchanges
        let again = try await manager.obtainAccessToken(scope: Self.login)
        XCTAssertEqual(again, token)
        _ = try await resource("protected").send(using: client)
        XCTAssertEqual(fixture.backend.statistics.codeExchanges, exchanges, "the cached token served both")

        fixture.clock.advance(by: 61)
        let renewed = try await manager.obtainAccessToken(scope: Self.login)
        XCTAssertNotEqual(renewed, token)
        XCTAssertEqual(handler.challenges.count, 2, "the success lasted 60 s, so the expired token needed a new login")
    }

    /// logout(securityCheck:) forgets the check's tokens and logs out at the server: the next request is challenged again.
    func testLogoutChallengesTheNextRequestAgain() async throws {
        let (client, handler) = client(handling: Self.login, .answers([Self.john, Self.john]))
        let token = try await client.authorizationManager.obtainAccessToken(scope: Self.login)
        let status2 = try await resource("protected").send(using: client).status
        XCTAssertEqual(status2, 200)
        XCTAssertEqual(handler.challenges.count, 1)

        try await client.authorizationManager.logout(securityCheck: Self.login)
        XCTAssertEqual(try fixture.storedChallengeSession(of: client)?.tokens.count, 0)
        let userAfterLogout = await client.authorizationManager.userIdentity
        XCTAssertNil(userAfterLogout)
        let revoked = try await RawResource.get(fixture.backend.mobileFirstURL("protected"), token: token)
        XCTAssertEqual(revoked, 401, "the server revoked the check's tokens")

        let status3 = try await resource("protected").send(using: client).status

        XCTAssertEqual(status3, 200)
        XCTAssertEqual(handler.challenges.count, 2, "challenged again after the logout")
    }

    /// Three wrong UserLogin answers block the check for 10 s; after that, it challenges again.
    func testUserLoginIsBlockedFor10Seconds() async throws {
        let client = fixture.challengeClient()
        let wrong: JSONValue = ["username": "john", "password": "nope"]
        let handler = TestChallengeHandler(securityCheck: Self.login, .answers([wrong, wrong, wrong, Self.john]))
        client.registerChallengeHandler(handler)
        await XCTAssertThrowsAuthError(.blocked(check: Self.login, retryAfter: 10)) {
            try await client.authorizationManager.obtainAccessToken(scope: Self.login)
        }
        fixture.clock.advance(by: 10)
        _ = try await client.authorizationManager.obtainAccessToken(scope: Self.login)
        XCTAssertEqual(handler.challenges.count, 4)
    }

    /// Remember-me: a new client on the same vault (a restarted app) gets a token without a challenge after the 60 s success, within 120 s.
    func testRememberedClientGetsATokenWithoutAChallengeAfterARestart() async throws {
        let (restarted, handler) = try await restartAfterLogin(Self.johnRemembered, .manual)
        let status4 = try await resource("protected").send(using: restarted).status
        XCTAssertEqual(status4, 200)
        XCTAssertTrue(handler.challenges.isEmpty, "the remembered client is not challenged")
        await eventually("handleSuccess reports the remembered user") { handler.successes.first?["user"]?["id"]?.stringValue == "john" }

        fixture.clock.advance(by: 121)
        let later = fixture.challengeClient()
        later.registerChallengeHandler(handler)
        await XCTAssertThrowsAuthError(.challengeTimeout(check: Self.login)) { try await self.resource("protected").send(using: later) }
        XCTAssertEqual(handler.challenges.count, 1, "challenged once remember-me has ended")
    }

    /// Without remember-me, a restarted app is challenged once the 60 s success has ended.
    func testWithoutRememberMeARestartedClientIsChallenged() async throws {
        let (restarted, handler) = try await restartAfterLogin(Self.john, .cancel)
        await XCTAssertThrowsAuthError(.challengeCancelled(check: Self.login)) { try await self.resource("protected").send(using: restarted) }
        XCTAssertEqual(handler.challenges.count, 1)
    }

    /// With 30 s tokens: logs in with `credentials` (one client), lets 90 s pass (the token and a
    /// plain success end; remember-me does not), and returns a new client on the same vault, as
    /// a restarted app would make, with a handler in `mode`.
    private func restartAfterLogin(_ credentials: JSONValue, _ mode: TestChallengeHandler.Mode) async throws -> (ChallengeClient, TestChallengeHandler) {
        try await restartFixture { $0.mobileFirst.tokenLifetime = 30 }
        let (first, _) = client(handling: Self.login, .answers([credentials]))
        _ = try await first.authorizationManager.obtainAccessToken(scope: Self.login)
        fixture.clock.advance(by: 90)
        return client(handling: Self.login, mode)
    }

    /// A token the resource refuses (expired by the server's clock) is forgotten and replaced once, without a challenge while the check holds.
    func testARefusedTokenIsReplacedOnce() async throws {
        try await restartFixture { $0.mobileFirst.tokenLifetime = 30 }
        let clientClock = fixture.clock.now
        let client = fixture.challengeClient { $0.now = { clientClock } }
        let handler = TestChallengeHandler(securityCheck: Self.login, .answers([Self.johnRemembered]))
        client.registerChallengeHandler(handler)
        let token = try await client.authorizationManager.obtainAccessToken(scope: Self.login)
        fixture.clock.advance(by: 40)

        let reply = try await resource("protected").send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(handler.challenges.count, 1)
        XCTAssertNotEqual(try fixture.storedChallengeSession(of: client)?.tokens.first?.token, token, "the refused token was replaced")
    }

    /// A restarted app whose stored tokens (the default scope's and the resource's) are valid by
    /// its clock but expired by the server's: the first refusal makes the request's next tokens
    /// come from the server, so a remembered client gets the resource without a challenge.
    func testAfterARefusedTokenTheCachedTokensAreNotTried() async throws {
        try await restartFixture { $0.mobileFirst.tokenLifetime = 30 }
        let clientClock = fixture.clock.now
        let first = fixture.challengeClient { $0.now = { clientClock } }
        let handler = TestChallengeHandler(securityCheck: Self.login, .answers([Self.johnRemembered]))
        first.registerChallengeHandler(handler)
        let status = try await resource("protected").send(using: first).status
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try fixture.storedChallengeSession(of: first)?.tokens.count, 2, "the default scope's token and UserLogin's")
        fixture.clock.advance(by: 90)

        let restarted = fixture.challengeClient { $0.now = { clientClock } }
        restarted.registerChallengeHandler(handler)
        let reply = try await resource("protected").send(using: restarted)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(handler.challenges.count, 1, "remember-me: no new challenge")
    }

    /// logoutAll removes the client's keychain item (its registration and private key, the
    /// tokens, the user) before it logs out at the server with a signed assertion, which the dev
    /// backend verifies; the next request registers a new client with a new key.
    func testLogoutAllForgetsTheKeyAndTheNextRequestRegistersAgain() async throws {
        let (client, _) = client(handling: "PinCodeAttempts", .answers([["pin": "1234"], ["pin": "1234"]]))
        let status = try await resource("balance").send(using: client).status
        XCTAssertEqual(status, 200)
        let before = try XCTUnwrap(try fixture.storedChallengeSession(of: client)?.registration)

        try await client.authorizationManager.logoutAll()
        XCTAssertNil(try fixture.storedChallengeSession(of: client), "the item, and the private key in it, is gone")
        XCTAssertEqual(fixture.backend.statistics.checkLogouts, 1, "logged out of PinCodeAttempts at the server")
        XCTAssertEqual(fixture.backend.statistics.refusedSignatures, 0)

        let again = try await resource("balance").send(using: client).status
        XCTAssertEqual(again, 200)
        let after = try XCTUnwrap(try fixture.storedChallengeSession(of: client)?.registration)
        XCTAssertNotEqual(after.clientID, before.clientID)
        XCTAssertNotEqual(after.key, before.key, "a new key")
        XCTAssertEqual(fixture.backend.statistics.registrations, 2)
    }
}
