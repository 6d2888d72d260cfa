@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import XCTest

/// Many requests meeting one challenge: one prompt, and every waiter completes.
final class ConcurrentChallengeTests: ChallengeTestCase {
    static let pin = MobileFirstConfiguration.pinCodeCheck
    static let login = MobileFirstConfiguration.userLoginCheck

    /// Starts 20 concurrent balance requests with a manual PIN handler, and waits until all 20 wait for its one challenge.
    private func twentyWaitingRequests(_ client: ChallengeClient, _ handler: TestChallengeHandler) async -> Task<[Result<HTTPReply, AuthError>], Never> {
        let balance = resource("balance")
        let requests = Task { await concurrently(20) { () async throws(AuthError) in try await balance.send(using: client) } }
        await handler.challenge()
        await eventually("all 20 requests wait for the challenge") { await client.authorizationManager.waiting(forScope: Self.pin) == 20 }
        return requests
    }

    /// 20 concurrent requests hit one challenge: the user is prompted exactly once and all 20 succeed.
    func testTwentyConcurrentRequestsShareOnePromptAndAllSucceed() async throws {
        let (client, handler) = client(handling: Self.pin, .manual)
        let requests = await twentyWaitingRequests(client, handler)

        XCTAssertTrue(handler.submitChallengeAnswer(["pin": "1234"]))
        let results = await requests.value
        XCTAssertEqual(results.count, 20)
        for result in results { XCTAssertEqual(try result.get().status, 200) }
        XCTAssertEqual(handler.challenges.count, 1, "one prompt for all 20")
        // The resource first answers a bare `Bearer` 401 (no token sent): one default-scope token, then one for the PIN.
        XCTAssertEqual(fixture.backend.statistics.codeExchanges, 2, "one token of each scope for all 20")
    }

    /// 20 concurrent requests wait on one challenge; cancelling it fails all 20 at once with challengeCancelled.
    func testTwentyConcurrentRequestsAllFailWhenThePromptIsCancelled() async throws {
        let (client, handler) = client(handling: Self.pin, .manual)
        let requests = await twentyWaitingRequests(client, handler)

        XCTAssertTrue(handler.cancel())
        let results = await requests.value
        XCTAssertEqual(results.count, 20)
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .challengeCancelled(check: Self.pin)) }
        }
        XCTAssertEqual(handler.challenges.count, 1)
    }

    /// 20 concurrent requests wait on one challenge that ends blocked: all 20 fail as blocked.
    func testTwentyConcurrentRequestsAllFailAsBlocked() async throws {
        let (client, handler) = client(handling: Self.pin, .manual)
        let requests = await twentyWaitingRequests(client, handler)

        for attempt in 1...3 {
            await handler.challenge(attempt)
            XCTAssertTrue(handler.submitChallengeAnswer(["pin": .string("000\(attempt)")]))
        }
        let results = await requests.value
        XCTAssertEqual(results.count, 20)
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .blocked(check: Self.pin, retryAfter: 60)) }
        }
    }

    /// Cancelling one waiting request's task ends it with .cancelled at once; the other still succeeds after the answer.
    func testCancellingOneWaitingRequestLeavesTheOtherWaiting() async throws {
        let (client, handler) = client(handling: Self.pin, .manual)
        let balance = resource("balance")
        let first = Task { try await balance.send(using: client) }
        let second = Task { try await balance.send(using: client) }
        await handler.challenge()
        await eventually("both requests wait") { await client.authorizationManager.waiting(forScope: Self.pin) == 2 }

        first.cancel()
        await XCTAssertThrowsAuthError(.cancelled) { try await first.value }
        XCTAssertTrue(handler.isChallenged, "the other request still waits for the answer")
        XCTAssertTrue(handler.submitChallengeAnswer(["pin": "1234"]))
        let reply = try await second.value
        XCTAssertEqual(reply.status, 200)
    }

    /// Cancelling the only waiting request ends its challenge: the check is no longer challenged, and a late answer is refused.
    func testCancellingTheOnlyRequestEndsItsChallenge() async throws {
        let (client, handler) = client(handling: Self.pin, .manual)
        let balance = resource("balance")
        let request = Task { try await balance.send(using: client) }
        await handler.challenge()
        request.cancel()
        await XCTAssertThrowsAuthError(.cancelled) { try await request.value }
        await eventually("the challenge ended") { !handler.isChallenged }
        XCTAssertFalse(handler.submitChallengeAnswer(["pin": "1234"]))
    }

    /// A client whose UserLogin and PinCodeAttempts handlers answer only when the test tells them to.
    private func clientWithManualLoginAndPIN() -> (ChallengeClient, TestChallengeHandler, TestChallengeHandler) {
        let client = fixture.challengeClient { $0.loginTimeout = .seconds(60) }
        let login = TestChallengeHandler(securityCheck: Self.login, .manual)
        let pin = TestChallengeHandler(securityCheck: Self.pin, .manual)
        client.registerChallengeHandler(login)
        client.registerChallengeHandler(pin)
        return (client, login, pin)
    }

    /// Two flows of different scopes that both meet UserLogin and PinCodeAttempts: each check is prompted once, and neither flow waits on the other forever.
    func testTwoScopesWithTheSameTwoChecksPromptEachOnce() async throws {
        let (client, login, pin) = clientWithManualLoginAndPIN()
        let transfer = resource("transfer")
        let manager = client.authorizationManager
        let first = Task { try await transfer.send(using: client) }
        let second = Task { try await manager.obtainAccessToken(scope: "UserLogin PinCodeAttempts RegisteredClient") }
        await login.challenge()
        await pin.challenge()
        let backend = fixture.backend
        await eventually("both flows have met the challenges") { backend.statistics.challenges >= 4 }

        XCTAssertTrue(login.submitChallengeAnswer(Self.john))
        XCTAssertTrue(pin.submitChallengeAnswer(["pin": "1234"]))
        let status = try await first.value.status
        XCTAssertEqual(status, 200)
        _ = try await second.value
        XCTAssertEqual(login.challenges.count, 1)
        XCTAssertEqual(pin.challenges.count, 1)
    }

    /// Requests of two scopes that share a check (protected: UserLogin; transfer: UserLogin and PIN) prompt UserLogin once.
    func testRequestsOfTwoScopesParkOnTheSharedCheck() async throws {
        let (client, login, pin) = clientWithManualLoginAndPIN()
        let (protected, transfer) = (resource("protected"), resource("transfer"))
        let first = Task { try await protected.send(using: client) }
        let second = Task { try await transfer.send(using: client) }
        await login.challenge()
        await pin.challenge()

        XCTAssertTrue(login.submitChallengeAnswer(Self.john))
        XCTAssertTrue(pin.submitChallengeAnswer(["pin": "1234"]))
        let status1 = try await first.value.status
        XCTAssertEqual(status1, 200)
        let status2 = try await second.value.status
        XCTAssertEqual(status2, 200)
        XCTAssertEqual(login.challenges.count, 1, "UserLogin was prompted once for both requests")
        XCTAssertEqual(pin.challenges.count, 1)
    }
}
