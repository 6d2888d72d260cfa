import AsyncHTTPClient
import CofferTestSupport
@testable import CofferAuth
import CofferDevBackend
import Foundation
import XCTest

extension AuthFixture {
    /// Challenge timeouts in the tests: a handler that never answers fails its requests this soon.
    static let challengeTimeout = Duration.milliseconds(400)

    /// A challenge client of the dev backend's MobileFirst runtime (or `server`), on the
    /// fixture's vault, with the fixture's clock, short deadlines and a 1 s leeway.
    func challengeClient(
        _ server: ChallengeServer? = nil, configure: (inout ChallengeClient.Configuration) -> Void = { _ in }
    ) -> ChallengeClient {
        let clock = self.clock
        var configuration = ChallengeClient.Configuration(
            clockSkewLeeway: .seconds(1), requestTimeout: Self.requestTimeout, loginTimeout: Self.challengeTimeout,
            now: { clock.now }, logger: quietLogger)
        configure(&configuration)
        return ChallengeClient(server: server ?? backend.mobileFirstServer, store: vault, configuration: configuration)
    }

    /// The challenge client's stored session, raw.
    func storedChallengeSession(of client: ChallengeClient) throws -> ChallengeSession? {
        guard let data = try keychain.data(for: "challenges \(client.server.storageKey)") else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(ChallengeSession.self, from: data)
    }
}

/// A test case with a fresh ``AuthFixture`` per test, and helpers for challenge flows.
class ChallengeTestCase: AuthTestCase {
    /// A MobileFirst resource of the dev backend: `protected`, `balance` or `transfer`.
    func resource(_ name: String) -> ResourceRequest {
        ResourceRequest(url: fixture.backend.mobileFirstURL(name))
    }

    /// A challenge client of the MobileFirst runtime with one test handler registered for `check`.
    /// Manual handlers get a long challenge timeout, so that the test decides when to answer.
    func client(handling check: String, _ mode: TestChallengeHandler.Mode) -> (ChallengeClient, TestChallengeHandler) {
        let client = fixture.challengeClient { configuration in
            if case .manual = mode { configuration.loginTimeout = .seconds(60) }
        }
        let handler = TestChallengeHandler(securityCheck: check, mode)
        client.registerChallengeHandler(handler)
        return (client, handler)
    }

    /// Restarts the fixture with `configure` applied to the dev backend's configuration.
    func restartFixture(configure: @escaping (inout DevBackend.Configuration) -> Void) async throws {
        await fixture.stop()
        fixture = try await AuthFixture.start(configure: configure)
    }

    static let john: JSONValue = ["username": "john", "password": "john"]
    static let johnRemembered: JSONValue = ["username": "john", "password": "john", "rememberMe": true]
}

/// Runs `count` copies of `body` at once and collects their outcomes.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable () async throws(AuthError) -> T) async -> [Result<T, AuthError>] {
    await withTaskGroup(of: Result<T, AuthError>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do throws(AuthError) { return .success(try await body()) } catch { return .failure(error) }
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

