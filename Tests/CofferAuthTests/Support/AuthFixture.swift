import AsyncHTTPClient
import CofferTestSupport
import Coffer
@testable import CofferAuth
import CofferDevBackend
import Foundation
import Logging
import XCTest

/// A running dev backend, a real vault in a private temporary folder, and facades on them.
final class AuthFixture: Sendable {
    let backend: DevBackend
    let folder: URL
    let vault: Vault
    let keychain: Keychain
    let clock: TestClock

    /// Starts a dev backend with `configure` applied to its configuration (the fixture's clock is injected).
    static func start(configure: (inout DevBackend.Configuration) -> Void = { _ in }) async throws -> AuthFixture {
        let clock = TestClock()
        var configuration = DevBackend.Configuration(now: { clock.now }, maxHang: Self.maxHang, logger: quietLogger)
        configure(&configuration)
        let backend = try await DevBackend.start(configuration)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-auth-\(UUID().uuidString)")
        let vault = try Vault.create(at: folder.appendingPathComponent("test.vault"), with: .key(.random(count: 32)))
        return AuthFixture(backend: backend, folder: folder, vault: vault, clock: clock)
    }

    private init(backend: DevBackend, folder: URL, vault: Vault, clock: TestClock) {
        self.backend = backend
        self.folder = folder
        self.vault = vault
        self.keychain = Keychain(service: "coffer.auth", store: vault)
        self.clock = clock
    }

    /// Short deadlines, so a hung reply fails a test in about two seconds; not shorter, since a
    /// loaded 2-core machine can take most of a second to answer a loopback request
    /// (ClientAccessTests.testAnsweredChallengeSetsUserIdentity timed out at 700 ms).
    static let requestTimeout = Duration.milliseconds(TestTiming.limit(milliseconds: 2000))
    /// The longest a request that fails at its deadline may take: the deadline and a second more.
    /// One that ends later waited for ``maxHang``.
    static let noHang = Duration.milliseconds(TestTiming.limit(milliseconds: 3000))
    /// When the dev backend gives up a hang and answers 503: well past ``noHang``, so that a
    /// client that waited for it fails the test rather than passing by luck.
    static let maxHang = Duration.milliseconds(TestTiming.limit(milliseconds: 6000))

    /// A facade on the dev backend, with the fixture's clock and short deadlines.
    func authorization(
        _ backend: MobileBackend? = nil, oauth: Bool = true, tokenExchange: TokenExchangeForm = .omc,
        httpClient: HTTPClient = Authorization.defaultHTTPClient, configure: (inout Authorization.Configuration) -> Void = { _ in }
    ) -> Authorization {
        let clock = self.clock
        var configuration = Authorization.Configuration(
            clockSkewLeeway: .seconds(30), requestTimeout: Self.requestTimeout, now: { clock.now }, logger: quietLogger)
        configure(&configuration)
        return Authorization(
            backend: backend ?? self.backend.mobileBackend(oauth: oauth, tokenExchange: tokenExchange),
            store: vault, configuration: configuration, httpClient: httpClient)
    }

    /// Logs the dev backend's default user in through `auth`.
    func logIn(_ auth: Authorization) async throws {
        try await auth.authenticate(userName: Self.user.name, password: Self.user.password)
    }

    /// Starts `request`, which must refresh a login whose access token the clock has just run
    /// past: the backend rotates the refresh token at once and holds its reply back a second.
    /// Returns once the backend has rotated it.
    func refreshWithItsReplyHeldBack<Value: Sendable>(_ request: @escaping @Sendable () async throws -> Value) async -> Task<Value, any Error> {
        clock.advance(by: backend.configuration.tokenLifetime + 1)
        backend.faults.inject(.delayReply(.seconds(1)), on: .token)
        let refresh = Task { try await request() }
        let backend = backend
        await eventually("the backend rotated the refresh token") { backend.statistics.refreshRequests == 1 }
        return refresh
    }

    /// The session item as stored, raw.
    func storedSession(account: String = "session") throws -> StoredSession? {
        guard let data = try keychain.data(for: account) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(StoredSession.self, from: data)
    }

    func stop() async {
        await backend.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    static let user = DevBackend.Configuration.defaultUser
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsAuthError<T>(
    _ expected: AuthError, _ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line
) async {
    await XCTAssertThrowsAuthError(matching: { $0 == expected }, body, file: file, line: line)
}

/// Asserts that `body` throws an error that `matches` accepts.
func XCTAssertThrowsAuthError<T>(
    matching matches: (AuthError) -> Bool, _ body: () async throws -> T,
    file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        _ = try await body()
        XCTFail("expected an error, but it succeeded", file: file, line: line)
    } catch let error as AuthError {
        XCTAssertTrue(matches(error), "unexpected error: \(error)", file: file, line: line)
    } catch {
        XCTFail("not an AuthError: \(error)", file: file, line: line)
    }
}
