import AsyncHTTPClient
import Coffer
@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// The agent's token broker refreshes a mobile backend's OAuth login at an independent server:
/// oauthlib's reference `Server` (RFC 6749 §6, refresh tokens rotated and a spent one refused),
/// on 127.0.0.1, with a real agent holding a real vault.
final class BrokeredInteropTests: XCTestCase {
    private var held: AgentHeldVault!
    private var server: OAuthlibServer!
    /// Access tokens last this long; the agent takes one as expired half way.
    private static var tokenLifetime: Int { 4 * TestTiming.scale }

    override func setUp() async throws {
        server = try OAuthlibServer(arguments: ["--refresh", "--expires-in", "\(Self.tokenLifetime)"])
        held = try AgentHeldVault()
    }

    override func tearDown() {
        held?.stop()
        server?.stop()
        super.tearDown()
    }

    /// How many refresh_token grants the server answered, and refused.
    private func refreshCount() async throws -> (count: Int, refused: Int) {
        let reply = try await HTTPClient.shared.execute(HTTPClientRequest(url: server.baseURL.appendingPathComponent("stats").absoluteString), timeout: .seconds(10))
        let body = try await reply.body.collect(upTo: 1 << 16)
        let stats = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Int])
        return (try XCTUnwrap(stats["refreshes"]), try XCTUnwrap(stats["refused"]))
    }

    /// The app logs in with the password grant and hands the session to the agent; once the
    /// access token has expired, ten concurrent callers get one new token from one refresh at
    /// the server (none refused), the server accepts it, and the agent stored the rotated
    /// refresh token, which the app never held.
    func testTheAgentRefreshesAtAnIndependentServer() async throws {
        let backend = MobileBackend(
            baseURL: server.baseURL, backendID: "interop",
            authentication: .oauth(
                tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: OAuthlibServer.client.id,
                clientSecret: OAuthlibServer.client.secret),
            revocationEndpoint: server.baseURL.appendingPathComponent("revoke"))
        let auth = Authorization(backend: backend, broker: try held.broker(), profile: "interop", configuration: ClientConfiguration(logger: quietLogger))
        try await auth.authenticate(userName: OAuthlibServer.user.name, password: OAuthlibServer.user.password)
        let handed = try XCTUnwrap(try held.backendSession(profile: "interop")?.refreshToken)
        let first = try await auth.accessToken()

        usleep(useconds_t(Self.tokenLifetime) * 500_000 + 300_000)  // expired: the agent's leeway is half its life
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await auth.accessToken().value } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens).count, 1, "every caller got the same token")
        XCTAssertNotEqual(tokens[0], first.value)
        let counted = try await refreshCount()
        XCTAssertEqual(counted.count, 1, "one refresh for every caller")
        XCTAssertEqual(counted.refused, 0)
        let me = try await auth.get(server.baseURL.appendingPathComponent("me"))
        XCTAssertEqual(me.status, 200, "the server takes the refreshed token")
        let rotated = try XCTUnwrap(try held.backendSession(profile: "interop")?.refreshToken)
        XCTAssertNotEqual(rotated, handed, "the rotated refresh token is stored")
        for item in try auth.store.items(matching: ItemQuery()) {
            let data = try XCTUnwrap(try auth.store.secret(for: item.id))
            XCTAssertNil(data.range(of: Data(rotated.utf8)) ?? data.range(of: Data(handed.utf8)), "the app holds no refresh token")
        }
    }
}
