@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import XCTest

/// MobileFirst's `PinCodeAttempts` security check through `ResourceRequest`, end to end over loopback.
final class PinCodeChallengeTests: ChallengeTestCase {
    static let pin = MobileFirstConfiguration.pinCodeCheck

    /// Wrong PIN twice (remainingAttempts 3, then 2, then 1), then right: the request returns the balance.
    func testWrongTwiceThenRightReturnsTheBalance() async throws {
        let (client, handler) = client(handling: Self.pin, .answers([["pin": "0000"], ["pin": "1111"], ["pin": "1234"]]))

        let reply = try await resource("balance").send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["balance"]?.stringValue, "19938.80")
        XCTAssertEqual(handler.challenges.map { $0["remainingAttempts"]?.intValue }, [3, 2, 1])
        XCTAssertEqual(handler.challenges.map { $0["errorMsg"]?.stringValue }, [nil, "Pin code is not valid.", "Pin code is not valid."])
        XCTAssertEqual(handler.challenges.first?["errorMsg"], .null)
        await eventually("handleSuccess was called") { handler.successes.count == 1 }
        XCTAssertFalse(handler.isChallenged)
    }

    /// Three wrong PINs: handleFailure gets "Account blocked", the request fails as blocked for 60 s, and the block ends by the clock.
    func testThreeWrongPINsCallHandleFailureAndFailAsBlocked() async throws {
        let client = fixture.challengeClient()
        let handler = TestChallengeHandler(
            securityCheck: Self.pin, .answers([["pin": "0000"], ["pin": "1111"], ["pin": "2222"], ["pin": "1234"]]))
        client.registerChallengeHandler(handler)

        await XCTAssertThrowsAuthError(.blocked(check: Self.pin, retryAfter: 60)) { try await self.resource("balance").send(using: client) }
        await eventually("handleFailure was called") { handler.failures.count == 1 }
        XCTAssertEqual(handler.failures.first?["failure"]?.stringValue, "Account blocked")
        XCTAssertFalse(handler.isChallenged)

        fixture.clock.advance(by: 30)
        await XCTAssertThrowsAuthError(.blocked(check: Self.pin, retryAfter: 30)) { try await self.resource("balance").send(using: client) }
        XCTAssertEqual(handler.challenges.count, 3, "a blocked check sends no challenge")

        fixture.clock.advance(by: 30)
        let reply = try await resource("balance").send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(handler.challenges.last?["remainingAttempts"]?.intValue, 3, "the attempts start again after the block")
    }

    /// cancel() fails the request with challengeCancelled, and the check is no longer challenged.
    func testCancelFailsTheRequestAsCancelled() async throws {
        let (client, handler) = client(handling: Self.pin, .cancel)
        await XCTAssertThrowsAuthError(.challengeCancelled(check: Self.pin)) { try await self.resource("balance").send(using: client) }
        XCTAssertEqual(handler.challenges.count, 1)
        XCTAssertFalse(handler.isChallenged)
        XCTAssertFalse(handler.submitChallengeAnswer(["pin": "1234"]), "nothing waits for an answer any more")
    }

    /// A reply that challenges two checks shows both challenges at once, and answers both in one retry.
    func testTwoChecksInOneReplyAreBothAnsweredBeforeTheRetry() async throws {
        let client = fixture.challengeClient()
        let login = TestChallengeHandler(securityCheck: MobileFirstConfiguration.userLoginCheck, .manual)
        let pin = TestChallengeHandler(securityCheck: Self.pin, .manual)
        client.registerChallengeHandler(login)
        client.registerChallengeHandler(pin)

        let transfer = resource("transfer")
        let request = Task { try await transfer.send(using: client) }
        // Both are prompted before either answers: a handler-by-handler dispatch would stall here.
        await login.challenge()
        await pin.challenge()
        let preauthorizations = fixture.backend.statistics.preauthorizations
        XCTAssertTrue(pin.submitChallengeAnswer(["pin": "1234"]))
        XCTAssertTrue(login.submitChallengeAnswer(Self.john))

        let reply = try await request.value
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, "john")
        XCTAssertEqual(fixture.backend.statistics.preauthorizations, preauthorizations + 1, "one retry carried both answers")
        XCTAssertEqual(login.challenges.count + pin.challenges.count, 2)
    }

    /// Each check's handleSuccess is called once per flow, although later replies repeat the success.
    func testEachSuccessIsReportedOncePerFlow() async throws {
        let client = fixture.challengeClient()
        let login = TestChallengeHandler(securityCheck: MobileFirstConfiguration.userLoginCheck, .answers([Self.john]))
        let pin = TestChallengeHandler(securityCheck: Self.pin, .answers([["pin": "0000"], ["pin": "1234"]]))
        client.registerChallengeHandler(login)
        client.registerChallengeHandler(pin)
        let reply = try await resource("transfer").send(using: client)
        XCTAssertEqual(reply.status, 200)
        await login.drained()
        await pin.drained()
        XCTAssertEqual(login.successes.count, 1, "UserLogin succeeded in round 2; rounds 3 and 4 repeated it")
        XCTAssertEqual(pin.successes.count, 1)
        XCTAssertEqual(pin.challenges.count, 2)
    }

    /// A check with no registered handler fails the request with noHandler, prompting no one.
    func testACheckWithoutAHandlerIsNoHandler() async throws {
        let client = fixture.challengeClient()
        let login = TestChallengeHandler(securityCheck: MobileFirstConfiguration.userLoginCheck, .manual)
        client.registerChallengeHandler(login)
        await XCTAssertThrowsAuthError(.noHandler(check: Self.pin)) { try await self.resource("transfer").send(using: client) }
        XCTAssertTrue(login.challenges.isEmpty, "no one is prompted when a check has no handler")
    }

    /// A handler that never answers: the request fails with challengeTimeout after the configured time, and a late answer is ignored.
    func testAHandlerThatNeverAnswersTimesOut() async throws {
        let client = fixture.challengeClient()
        let handler = TestChallengeHandler(securityCheck: Self.pin, .manual)
        client.registerChallengeHandler(handler)
        await XCTAssertThrowsAuthError(.challengeTimeout(check: Self.pin)) { try await self.resource("balance").send(using: client) }
        XCTAssertEqual(handler.challenges.count, 1)
        XCTAssertFalse(handler.isChallenged)
        XCTAssertFalse(handler.submitChallengeAnswer(["pin": "1234"]))
    }
}
