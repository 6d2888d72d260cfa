@testable import CofferAuth
import CofferDevBackend
import XCTest

final class SingleFlightTests: AuthTestCase {

    /// Logs in, then lets the token expire, so the next callers all need a new one.
    private func expiredSession() async throws -> Authorization {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        return auth
    }

    /// Runs `count` concurrent `authorizationHeaders()` calls and collects their outcomes.
    private func concurrentHeaders(_ auth: Authorization, count: Int) async -> [Result<String, AuthError>] {
        await withTaskGroup(of: Result<String, AuthError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(AuthError) { return .success(try await auth.authorizationHeaders().authorization) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// 50 concurrent callers with an expired token share one token request and all get the same new token.
    func testConcurrentCallersShareOneTokenRequest() async throws {
        let auth = try await expiredSession()
        let before = fixture.backend.statistics.tokenRequests
        fixture.backend.faults.inject(.delay(.milliseconds(200)), on: .token)

        let results = await concurrentHeaders(auth, count: 50)
        let headers = Set(results.compactMap { try? $0.get() })
        XCTAssertEqual(headers.count, 1, "\(results.filter { (try? $0.get()) == nil })")
        XCTAssertEqual(results.count, 50)
        XCTAssertEqual(fixture.backend.statistics.tokenRequests, before + 1)
        XCTAssertEqual(try fixture.storedSession()?.token?.headerValue, headers.first, "the shared token was stored")
    }

    /// When the shared token request fails, every waiter gets the same typed error and none hangs.
    func testEveryWaiterGetsTheSharedFailure() async throws {
        let auth = try await expiredSession()
        let stored = try fixture.storedSession()
        fixture.backend.faults.inject(.status(503), on: .token)
        let results = await concurrentHeaders(auth, count: 20)
        XCTAssertEqual(results.count, 20)
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .serverError(status: 503)) }
        }
        XCTAssertEqual(try fixture.storedSession(), stored, "the earlier session is unchanged")
    }

    /// A hung token endpoint gives every waiter `timeout` within the deadline.
    func testHungTokenEndpointTimesEveryWaiterOut() async throws {
        let auth = try await expiredSession()
        fixture.backend.faults.inject(.hang, on: .token)
        let started = ContinuousClock.now
        let results = await concurrentHeaders(auth, count: 10)
        XCTAssertLessThan(ContinuousClock.now - started, AuthFixture.noHang)
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .timeout) }
        }
    }

    /// A cancelled waiter gets `cancelled` at once, while the others still get the shared token.
    func testCancelledWaiterLeavesWithoutDisturbingOthers() async throws {
        let auth = try await expiredSession()
        fixture.backend.faults.inject(.delay(.milliseconds(300)), on: .token)
        let cancelled = Task { try await auth.authorizationHeaders() }
        let kept = Task { try await auth.authorizationHeaders() }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = ContinuousClock.now
        cancelled.cancel()
        let cancelledResult = await cancelled.result
        XCTAssertLessThan(ContinuousClock.now - cancelledAt, .milliseconds(200), "the cancelled caller does not wait for the reply")
        XCTAssertThrowsError(try cancelledResult.get()) { XCTAssertEqual($0 as? AuthError, .cancelled) }
        let headers = try await kept.value
        XCTAssertTrue(headers.authorization.hasPrefix("Bearer "))
    }

    /// When every waiter is cancelled, the token request is abandoned; the next caller starts a fresh one.
    func testAllWaitersCancelledAbandonsTheRequest() async throws {
        let auth = try await expiredSession()
        fixture.backend.faults.inject(.hang, on: .token)
        let waiter = Task { try await auth.authorizationHeaders() }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        let result = await waiter.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .cancelled) }

        let headers = try await auth.authorizationHeaders()
        XCTAssertTrue(headers.authorization.hasPrefix("Bearer "))
    }

    /// A logout during a token request fails its waiters with `notAuthenticated`, and the late token is not stored.
    func testLogoutDuringRenewalLeavesNoTokenBehind() async throws {
        let auth = try await expiredSession()
        fixture.backend.faults.inject(.delay(.milliseconds(300)), on: .token)
        let waiter = Task { try await auth.authorizationHeaders() }
        try await Task.sleep(for: .milliseconds(50))
        try await auth.logout()
        let result = await waiter.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .notAuthenticated) }
        try await Task.sleep(for: .milliseconds(400))
        XCTAssertNil(try fixture.storedSession())
        let isAuthorized = await auth.isAuthorized
        XCTAssertFalse(isAuthorized)
    }

    /// The SingleFlight primitive runs one operation for many callers and counts one start.
    func testSingleFlightRunsOneOperationForManyCallers() async throws {
        let flight = SingleFlight<Int>()
        let gate = AsyncStream<Void>.makeStream()
        let results = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try? await flight.run {
                        for await _ in gate.stream { break }
                        return .success(42)
                    }
                }
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while await flight.waiting < 30, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
            gate.continuation.yield()
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: 42, count: 30))
        let started = await flight.started
        XCTAssertEqual(started, 1)
    }
}
