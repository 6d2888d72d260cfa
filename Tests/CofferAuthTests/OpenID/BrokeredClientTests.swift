import AsyncHTTPClient
import Coffer
@testable import CofferAuth
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// ``OpenIDClient`` with the agent's token broker (docs/agent.md, "The token broker"): a real
/// agent (the built `coffer agent start`) holding a real vault, django-oauth-toolkit on
/// 127.0.0.1 rotating refresh tokens with reuse protection on. The app logs in, hands the login
/// to the agent, and from then on holds no refresh token; a broker that is missing or refuses
/// is a typed error, never a fallback to keeping the refresh token in the app.
final class BrokeredClientTests: XCTestCase {
    private let folder = TemporaryFolder()
    private var agent: RunningAgent?
    private var server: OIDCTestServer!
    private var vault: URL { folder.file("login.vault") }
    private var key: URL { folder.file("login.key") }
    private var socket: String { folder.file("run/agent.sock").path }
    /// Access tokens last this long; the agent takes one as expired half way.
    private static var tokenLifetime: Int { 10 * TestTiming.scale }

    override func setUp() async throws {
        server = try OIDCTestServer.shared(OIDCTestServer.Options(testHooks: true, accessTokenTTL: Self.tokenLifetime, idTokenTTL: 86_400))
        try FileManager.default.createDirectory(at: folder.file("run"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: key) }
        chmod(key.path, 0o600)
        try Vault.create(at: vault, with: .keyFile(key)).lock()
        let started = try RunningAgent(socket: socket)
        agent = started
        try started.unlock(vault, keyFile: key)
    }

    override func tearDown() {
        agent?.stop()
        KeptAgentConnection.close()
        super.tearDown()
    }

    override class func tearDown() {
        OIDCTestServer.stopShared()
        super.tearDown()
    }

    private func broker(socket: String? = nil) throws -> AgentTokenBroker {
        try AgentTokenBroker.login(environment: ["COFFER_AGENT_SOCKET": socket ?? self.socket, "COFFER_VAULT": vault.path])
    }

    private func client(_ broker: AgentTokenBroker) async throws -> OpenIDClient {
        let provider = try await OpenIDProvider.discover(issuer: server.issuer)
        return OpenIDClient(provider: provider, clientID: server.clients.native, broker: broker, configuration: ClientConfiguration(logger: quietLogger))
    }

    private func logIn(_ client: OpenIDClient) async throws {
        let login = try await client.startBrowserLogin(scope: OpenIDClient.defaultScope)
        let callback = try await BrowserPlayer(username: server.username, password: server.password).logIn(at: login.url, redirectURI: login.redirectURI)
        XCTAssertEqual(callback.status, 200)
        _ = try await login.complete(timeout: .seconds(10))
    }

    /// The refresh token of the session the vault holds, read directly as the person can.
    private func storedRefreshToken() throws -> String? {
        let opened = try Vault.open(at: vault, unlock: .keyFile(key))
        defer { opened.lock() }
        guard let item = try opened.items(matching: ItemQuery(service: OpenIDSessionLocation.service)).first(where: { $0.id.account.hasPrefix("default ") }),
              let data = try opened.secret(for: item.id)
        else { return nil }
        return try JSONDecoder.sessions.decode(OpenIDSession.self, from: data).refreshToken
    }

    /// After a browser login the session, refresh token included, is in the agent's vault and
    /// not in the app: its own store is empty and its session has no refresh token. Tokens
    /// come from the agent: valid ones as they are, an expired one refreshed once for ten
    /// concurrent callers of the app (one refresh request at the provider, none refused),
    /// reported by `events()` as `refreshed`; `send` authorizes a request to the login's API
    /// origin (the provider's UserInfo endpoint) with it.
    func testTheClientTakesItsTokensFromTheAgentAndNeverHoldsTheRefreshToken() async throws {
        let client = try await client(try broker())
        let events = client.events()
        try await logIn(client)
        let stored = try XCTUnwrap(try storedRefreshToken(), "the agent's vault holds the refresh token")
        let session = try await client.session()
        XCTAssertNil(session?.refreshToken, "the app holds no refresh token")
        XCTAssertEqual(try client.store.items(matching: ItemQuery()), [], "nor does its store")

        let first = try await client.accessToken()
        let userinfo = try await server.userinfo(accessToken: first.value)
        XCTAssertEqual(userinfo.status, 200)

        usleep(useconds_t(Self.tokenLifetime) * 500_000 + 300_000)
        let counted = try await server.refreshCount()
        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<10 { group.addTask { try await client.accessToken() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens.map(\.value)).count, 1, "one token for every caller")
        XCTAssertTrue(tokens[0].value != first.value, "a new token")
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 1, "one refresh request")
        XCTAssertEqual(after.refused, counted.refused)
        XCTAssertTrue(try storedRefreshToken() != stored, "the agent stored the rotated refresh token")
        let reply = try await client.send(HTTPClientRequest(url: server.userinfoEndpoint.absoluteString))
        XCTAssertEqual(reply.status, 200)
        let refreshedSession = try await client.session()
        XCTAssertNil(refreshedSession?.refreshToken)
        XCTAssertEqual(try client.store.items(matching: ItemQuery()), [])

        var iterator = events.makeAsyncIterator()
        let firstEvent = await iterator.next()
        let secondEvent = await iterator.next()
        XCTAssertEqual([firstEvent, secondEvent], [.loggedIn, .refreshed])
    }

    /// No agent at the socket: `accessToken()` throws the store's "agent unavailable", and a
    /// login cannot hand its session over (it fails, keeping nothing); an agent that no longer
    /// holds the vault: "locked"; an agent with no login of the profile: `notAuthenticated`.
    /// Never a token from anywhere else, and the app's store stays empty.
    func testAMissingOrRefusingBrokerIsATypedError() async throws {
        let loggedOut = try await client(try broker())
        do {
            _ = try await loggedOut.accessToken()
            XCTFail("no login")
        } catch .notAuthenticated {}

        let missing = try await client(AgentTokenBroker(AgentStore(client: AgentClient(path: folder.file("run/none.sock").path), vault: vault.path)))
        do {
            _ = try await missing.accessToken()
            XCTFail("no agent")
        } catch .storage(.agentUnavailable) {}
        do {
            try await logIn(missing)
            XCTFail("a login with no agent to hand it to")
        } catch let error as AuthError {
            guard case .storage(.agentUnavailable) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try missing.store.items(matching: ItemQuery()), [])
        let missingSession = try await missing.session()
        XCTAssertNil(missingSession?.refreshToken)

        let client = try await client(try broker())
        try await logIn(client)
        _ = try AgentClient(path: socket).send(.lock(vault: nil))
        do {
            _ = try await client.accessToken()
            XCTFail("the vault is locked")
        } catch .storage(.locked) {}
        XCTAssertEqual(try client.store.items(matching: ItemQuery()), [])
    }
}
