import AsyncHTTPClient
import Coffer
@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// A mobile backend's ``Authorization`` with the agent's token broker (docs/agent.md, "The token
/// broker"): a real agent (the built `coffer agent start`) holding a real vault, and the dev
/// backend on 127.0.0.1 (password and refresh_token grants, refresh tokens rotated). The app logs
/// in with the password grant, hands the session to the agent, and from then on holds no refresh
/// token; a broker that is missing or refuses is a typed error, never a fallback.
final class BrokeredAuthorizationTests: XCTestCase {
    private var held: AgentHeldVault!
    private var backend: DevBackend!
    private static let user = DevBackend.Configuration.defaultUser
    /// Access tokens last this long; the agent takes one as expired half way.
    private static var tokenLifetime: TimeInterval { TimeInterval(4 * TestTiming.scale) }

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(tokenLifetime: Self.tokenLifetime, logger: quietLogger))
        held = try AgentHeldVault()
    }

    override func tearDown() async throws {
        held?.stop()
        await backend.stop()
    }

    private func authorization(_ broker: AgentTokenBroker, oauth: Bool = true) -> Authorization {
        Authorization(backend: backend.mobileBackend(oauth: oauth), broker: broker, profile: "hub", configuration: ClientConfiguration(logger: quietLogger))
    }

    private func storedSession() throws -> StoredSession? {
        try held.backendSession(profile: "hub")
    }

    /// After a password login the session, refresh token included, is in the agent's vault and
    /// not in the app (its own store holds no refresh token). Tokens come from the agent: a
    /// valid one as it is; an expired one renewed once (one refresh_token grant at the backend)
    /// for ten concurrent callers, the rotated refresh token stored, reported by `events()` as
    /// `refreshed`; `send` authorizes a request to the backend with it. `logout()` has the agent
    /// revoke the refresh token and forget the login; then `accessToken()` is `notAuthenticated`.
    func testTheFacadeTakesItsTokensFromTheAgentAndNeverHoldsTheRefreshToken() async throws {
        let auth = authorization(try held.broker())
        XCTAssertTrue(auth.isBrokered)
        try await auth.authenticate(userName: Self.user.name, password: Self.user.password)
        let handed = try XCTUnwrap(try storedSession()?.refreshToken, "the agent's vault holds the refresh token")
        for item in try auth.store.items(matching: ItemQuery()) {
            let data = try XCTUnwrap(try auth.store.secret(for: item.id))
            XCTAssertFalse(data.range(of: Data(handed.utf8)) != nil, "the app's store holds no refresh token")
        }
        let first = try await auth.accessToken()
        let again = try await auth.accessToken()
        XCTAssertEqual(again.value, first.value, "a valid token as it is")
        XCTAssertEqual(backend.statistics.refreshRequests, 0)

        let events = auth.events()
        usleep(useconds_t(Self.tokenLifetime * 500_000) + 300_000)  // expired: its leeway is half its life
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await auth.accessToken().value } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens).count, 1, "every caller got the same token")
        XCTAssertNotEqual(tokens[0], first.value)
        XCTAssertEqual(backend.statistics.refreshRequests, 1, "one refresh for every caller")
        let rotated = try XCTUnwrap(try storedSession()?.refreshToken)
        XCTAssertNotEqual(rotated, handed, "the rotated refresh token is stored")
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        XCTAssertEqual(event, .refreshed)

        let reply = try await auth.send(ResourceRequest(url: backend.protectedURL))
        XCTAssertEqual(reply.status, 200)

        let report = try await auth.logout()
        XCTAssertTrue(report.revoked && report.removedStoredSession, "\(report)")
        XCTAssertTrue(backend.statistics.revokedKinds.contains("refresh"), "\(backend.statistics.revokedKinds)")
        XCTAssertNil(try storedSession())
        do {
            _ = try await auth.accessToken()
            XCTFail("logged out")
        } catch {
            guard case .notAuthenticated = error else { return XCTFail("\(error)") }
        }
    }

    /// A new login handed to the agent while the agent refreshes the old one (the backend has
    /// rotated its refresh token, and the reply is on the way): the agent stores the refresh
    /// first, then the new login, which is the one it keeps. Two processes of one program (the
    /// test helper) log in and ask for tokens, as two instances of an app would. (A regression:
    /// the refresh's save wrote the old login over the new one.)
    func testANewLoginWhileTheAgentRefreshesTheOldOneIsTheOneKept() async throws {
        let refresh = try await agentRefreshWithItsReplyHeldBack(.seconds(2))
        let new = try await passwordLogin(expired: false)
        let kept = try ChildProcess.run(helper, keepLoginArguments, stdin: new.bytes, timeout: .seconds(30))
        XCTAssertTrue(kept.stdoutText.hasPrefix("done"), kept.stdoutText + kept.stderrText)
        let refreshed = try refresh.wait(timeout: .seconds(30))
        XCTAssertTrue(refreshed.stdoutText.hasPrefix("token "), refreshed.stdoutText)
        XCTAssertEqual(try storedSession()?.token?.value, new.token, "the new login, not the refreshed old one, is stored")
    }

    /// `keep login`s that wait for the agent's refresh of the login wait on its prompt threads:
    /// two of them hold up no other client's request, which is answered while the refresh is
    /// still under way. (Before, they waited on the agent's two quick threads, and every other
    /// request waited with them; found by review on 2026-11-29.)
    func testKeepLoginsWaitingForARefreshHoldUpNoOtherRequest() async throws {
        let refresh = try await agentRefreshWithItsReplyHeldBack(.seconds(6))
        var keeps: [ChildProcess] = []
        for _ in 0..<2 { keeps.append(try ChildProcess.start(helper, keepLoginArguments, inputs: [0: try await passwordLogin(expired: false).bytes])) }
        usleep(500_000)  // both reach the agent and wait for the refresh
        let ping = try AgentClient(path: held.socket, timeout: .seconds(30)).send(.ping)
        guard case .agent = ping else { return XCTFail("no ping reply: \(ping)") }
        XCTAssertFalse(refresh.hasEnded, "answered while the refresh, and the keeps waiting for it, were under way")
        for keep in keeps {
            let kept = try keep.wait(timeout: .seconds(30))
            XCTAssertTrue(kept.stdoutText.hasPrefix("done"), kept.stdoutText + kept.stderrText)
        }
        XCTAssertEqual(try refresh.wait(timeout: .seconds(30)).status, 0)
    }

    private var helper: String { BuiltProducts.executable("coffer-test-helper").path }
    private var keepLoginArguments: [String] { ["agent-keep-login", held.socket, held.vault.path, "hub"] }

    /// A login kept in the agent by the test helper, its token expired, and a token request of
    /// another helper process that has the agent refresh it: returned once the backend has
    /// rotated the refresh token, its reply held back for `delay`.
    private func agentRefreshWithItsReplyHeldBack(_ delay: Duration) async throws -> ChildProcess {
        let old = try await passwordLogin(expired: true)
        let kept = try ChildProcess.run(helper, keepLoginArguments, stdin: old.bytes, timeout: .seconds(30))
        XCTAssertTrue(kept.stdoutText.hasPrefix("done"), kept.stdoutText + kept.stderrText)
        backend.faults.inject(.delayReply(delay), on: .token)
        let refresh = try ChildProcess.start(helper, ["agent-tokens", held.socket, held.vault.path, "hub", "1"])
        let backend = backend!
        await eventually("the backend rotated the old login's refresh token") { backend.statistics.refreshRequests == 1 }
        return refresh
    }

    /// A password login at the backend, stored in a vault of its own, as the bytes of a `keep
    /// login` request; with `expired`, its access token has expired, so that the agent refreshes
    /// it at the first token request.
    private func passwordLogin(expired: Bool) async throws -> (bytes: Data, token: String) {
        let folder = TemporaryFolder()
        let store = try Vault.create(at: folder.file("app.vault"), with: .key(.random(count: 32)))
        let sessionItem = ItemID.genericPassword(service: "coffer.auth", account: "session")
        let auth = Authorization(backend: backend.mobileBackend(oauth: true), store: store, sessionItem: sessionItem, configuration: ClientConfiguration(logger: quietLogger))
        try await auth.authenticate(userName: Self.user.name, password: Self.user.password)
        var session = try JSONDecoder.sessions.decode(StoredSession.self, from: XCTUnwrap(try store.secret(for: sessionItem)))
        let token = try XCTUnwrap(session.token)
        if expired { session.token = AccessToken(value: token.value, issuedAt: token.issuedAt, expiresAt: Date(timeIntervalSinceNow: -60)) }
        let bytes = try BrokeredBackendLogin(backend: backend.mobileBackend(oauth: true), session: session).encoded()
        return (bytes.withUnsafeBytes { Data($0) }, token.value)
    }

    /// No agent at the socket: `accessToken()` throws the store's "agent unavailable", and a
    /// login cannot hand its session over (it fails, and the app's store keeps nothing); an
    /// HTTP Basic backend or an SSO exchange with a broker is `invalidRequest`, before the
    /// network. Never a token from anywhere else.
    func testAMissingBrokerIsATypedError() async throws {
        let missing = authorization(held.missingBroker)
        do {
            _ = try await missing.accessToken()
            XCTFail("no agent")
        } catch {
            guard case .storage(.agentUnavailable) = error else { return XCTFail("\(error)") }
        }
        do {
            try await missing.authenticate(userName: Self.user.name, password: Self.user.password)
            XCTFail("a login with no agent to hand it to")
        } catch {
            guard case .storage(.agentUnavailable) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try missing.store.items(matching: ItemQuery()), [])

        let before = backend.statistics
        let basic = authorization(try held.broker(), oauth: false)
        do {
            try await basic.authenticate(userName: Self.user.name, password: Self.user.password)
            XCTFail("HTTP Basic with a broker")
        } catch {
            guard case .invalidRequest = error else { return XCTFail("\(error)") }
        }
        do {
            try await basic.authenticateSSOTokenExchange("third-party", storeAccessToken: true)
            XCTFail("an SSO exchange with a broker")
        } catch {
            guard case .invalidRequest = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(backend.statistics, before, "nothing went to the backend")
    }
}
