import Coffer
@testable import CofferAuth
import CofferTestSupport
import Foundation
import Synchronization
import XCTest

extension OIDCTestServer.Options {
    /// The server most DOT tests share: the device-expiry hook, a 1 s device interval, and ID
    /// tokens that stay valid for a day, so tests can move the client's clock hours ahead to
    /// expire access tokens without the refreshed ID tokens looking expired.
    static let interop = OIDCTestServer.Options(testHooks: true, deviceInterval: 1, idTokenTTL: 86_400)
}

/// A real vault in a private temporary folder, a test clock, and `OpenIDClient`s on them,
/// against django-oauth-toolkit.
final class DOTFixture: Sendable {
    let server: OIDCTestServer
    let folder: TemporaryFolder
    let vault: Vault
    let clock: TestClock

    init(server: OIDCTestServer) throws {
        self.server = server
        folder = TemporaryFolder()
        vault = try Vault.create(at: folder.file("test.vault"), with: .key(.random(count: 32)))
        // Whole seconds: the store keeps dates to the millisecond, and tests compare stored
        // access tokens with returned ones.
        clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// Short, bounded deadlines; the fixture's clock; locks in the fixture's folder; `sleep`
    /// for the device flow's waits (default: none, so polling never waits).
    func configuration(sleep: (@Sendable (Duration) async throws -> Void)? = nil) -> OpenIDClient.Configuration {
        let clock = self.clock
        return OpenIDClient.Configuration(
            requestTimeout: .seconds(20), loginTimeout: .seconds(60), refreshLockTimeout: .seconds(20), lockFolder: folder.url,
            now: { clock.now }, sleep: sleep ?? { _ in }, logger: quietLogger)
    }

    func client(
        _ provider: OpenIDProvider, clientID: String, clientSecret: String? = nil, sleep: (@Sendable (Duration) async throws -> Void)? = nil,
        configure: (inout OpenIDClient.Configuration) -> Void = { _ in }
    ) -> OpenIDClient {
        var configuration = configuration(sleep: sleep)
        configure(&configuration)
        return OpenIDClient(provider: provider, clientID: clientID, clientSecret: clientSecret, store: vault, configuration: configuration)
    }

    /// The provider as DOT's stock discovery describes it.
    func discover() async throws -> OpenIDProvider {
        try await OpenIDProvider.discover(issuer: server.issuer, configuration: configuration())
    }

    /// Stock discovery, plus the endpoints DOT has but does not publish there: device
    /// authorization and revocation (as an app configures them by hand).
    func discoverWithDOTEndpoints() async throws -> OpenIDProvider {
        var provider = try await discover()
        provider.deviceAuthorizationEndpoint = server.deviceAuthorizationEndpoint
        provider.revocationEndpoint = server.revocationEndpoint
        return provider
    }

    /// A browser login played through DOT's pages: returns what the app's listener answered
    /// and how the login ended.
    func browserLogin(
        _ client: OpenIDClient, scope: String = OpenIDClient.defaultScope, decision: BrowserPlayer.Decision = .approve
    ) async throws -> (callback: BrowserPlayer.Callback, result: Result<AuthenticatedUser, AuthError>) {
        let login = try await client.startBrowserLogin(scope: scope)
        let player = BrowserPlayer(username: server.username, password: server.password, decision: decision)
        let callback: BrowserPlayer.Callback
        do {
            callback = try await player.logIn(at: login.url, redirectURI: login.redirectURI)
        } catch {
            login.cancel()
            throw error
        }
        do {
            return (callback, .success(try await login.complete(timeout: .seconds(10))))
        } catch {
            return (callback, .failure(error))
        }
    }

    /// The session as the store holds it.
    func storedSession(_ client: OpenIDClient) throws -> OpenIDSession? {
        try OpenIDSessionLocation(issuer: client.provider.issuer.absoluteString, clientID: client.clientID, profile: client.profile)
            .load(from: vault)?.session
    }

    /// The OpenID sessions in the store.
    func storedSessionCount() throws -> Int {
        try vault.items(matching: ItemQuery(service: OpenIDSessionLocation.service)).count
    }

    /// Checks that the user's password is in no item of the store; returns how many were read.
    @discardableResult
    func assertNoPasswordStored(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        try CofferAuthTests.assertNoPasswordStored(server.password, in: vault, file: file, line: line)
    }
}

/// The device flow's waits, recorded instead of waited; an action can run at a given wait
/// (approving the login, say). The 50th wait cancels, so a runaway poll loop ends.
final class SleepScript: Sendable {
    private let state = Mutex<(durations: [Duration], action: (@Sendable (Int) async throws -> Void)?)>(([], nil))

    /// The waits asked for so far.
    var durations: [Duration] { state.withLock { $0.durations } }

    /// Runs `action` with the number of each wait (1 for the first), before it "ends".
    func onSleep(_ action: @escaping @Sendable (Int) async throws -> Void) {
        state.withLock { $0.action = action }
    }

    var sleep: @Sendable (Duration) async throws -> Void {
        { [self] duration in
            let (count, action) = state.withLock { state in
                state.durations.append(duration)
                return (state.durations.count, state.action)
            }
            guard count < 50 else { throw CancellationError() }
            try await action?(count)
        }
    }
}

/// The first `count` events of `stream` (they are buffered), or those that came within `timeout`.
func reportedEvents(_ stream: AsyncStream<SessionEvent>, count: Int, timeout: Duration = .seconds(2)) async -> [SessionEvent] {
    final class Collected: Sendable {
        let events = Mutex<[SessionEvent]>([])
    }
    let collected = Collected()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await event in stream {
                let total = collected.events.withLock { events in
                    events.append(event)
                    return events.count
                }
                if total >= count { break }
            }
        }
        group.addTask { try? await Task.sleep(for: timeout) }
        await group.next()
        group.cancelAll()
    }
    return collected.events.withLock { $0 }
}
