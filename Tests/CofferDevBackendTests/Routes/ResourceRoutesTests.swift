import CofferTestSupport
@testable import CofferDevBackend
import XCTest

final class ResourceRoutesTests: XCTestCase {
    var backend: DevBackend!
    let clock = TestClock()
    var client: RawClient { RawClient(backend: backend) }

    override func setUp() async throws {
        let clock = self.clock
        backend = try await DevBackend.start(DevBackend.Configuration(
            users: ["alice": "alice-pw", "bob": "bob-pw"], tokenLifetime: 60, now: { clock.now }, logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }

    /// /protected answers 200 naming the user for a valid token, and 401 with a Bearer challenge otherwise.
    func testProtectedNamesTheUserOrAnswers401() async throws {
        let token = try await client.passwordToken(user: "bob", password: "bob-pw")
        let ok = try await client.send(.GET, "/protected", authorization: "Bearer \(token)")
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.json?["user"]?.stringValue, "bob")

        let none = try await client.send(.GET, "/protected")
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.headers["www-authenticate"], #"Bearer realm="coffer-dev""#)
        let bogus = try await client.send(.GET, "/protected", authorization: "Bearer bogus")
        XCTAssertEqual(bogus.headers["www-authenticate"], #"Bearer realm="coffer-dev", error="invalid_token""#)
        let wrongBackend = try await client.send(.GET, "/protected", authorization: "Bearer \(token)", backendID: "other")
        XCTAssertEqual(wrongBackend.status, 401)
        let noBackend = try await client.send(.GET, "/protected", authorization: "Bearer \(token)", backendID: nil)
        XCTAssertEqual(noBackend.status, 401)
    }

    /// Valid HTTP Basic credentials open /protected; configured users are the ones accepted.
    func testBasicCredentialsOpenProtected() async throws {
        let alice = RawClient.basic("alice", "alice-pw")
        let ok = try await client.send(.GET, "/protected", authorization: alice)
        XCTAssertEqual(ok.json?["user"]?.stringValue, "alice")
        let demo = RawClient.basic("demo", "demo-password")
        let refused = try await client.send(.GET, "/protected", authorization: demo)
        XCTAssertEqual(refused.status, 401, "only configured users are accepted")
        let check = try await client.send(.GET, "/mobile/platform/users/login", authorization: alice)
        XCTAssertEqual(check.json?["username"]?.stringValue, "alice")
    }

    /// Tokens expire by the injected clock.
    func testTokensExpireByTheInjectedClock() async throws {
        let token = try await client.passwordToken(user: "alice", password: "alice-pw")
        clock.advance(by: 59)
        let early = try await client.send(.GET, "/protected", authorization: "Bearer \(token)")
        XCTAssertEqual(early.status, 200)
        clock.advance(by: 2)
        let late = try await client.send(.GET, "/protected", authorization: "Bearer \(token)")
        XCTAssertEqual(late.status, 401)
    }

    /// Revocation (RFC 7009) makes the token fail; unknown tokens still get 200, and unauthenticated clients 401.
    func testRevocation() async throws {
        let token = try await client.passwordToken(user: "alice", password: "alice-pw")
        let revoked = try await client.send(.POST, "/oauth2/v1/revoke", authorization: RawClient.clientAuthorization, form: "token=\(token)")
        XCTAssertEqual(revoked.status, 200)
        let after = try await client.send(.GET, "/protected", authorization: "Bearer \(token)")
        XCTAssertEqual(after.status, 401)
        let unknown = try await client.send(.POST, "/oauth2/v1/revoke", authorization: RawClient.clientAuthorization, form: "token=unknown")
        XCTAssertEqual(unknown.status, 200)
        let anonymous = try await client.send(.POST, "/oauth2/v1/revoke", form: "token=\(token)")
        XCTAssertEqual(anonymous.status, 401)
    }

    /// OMC's exchange takes the third-party token as a Bearer header and refuses unknown ones.
    func testOMCExchange() async throws {
        let ok = try await client.send(.GET, "/mobile/platform/sso/exchange-token", authorization: "Bearer demo-third-party-token")
        XCTAssertEqual(ok.status, 200)
        let token = try XCTUnwrap(ok.json?["access_token"]?.stringValue)
        let protected = try await client.send(.GET, "/protected", authorization: "Bearer \(token)")
        XCTAssertEqual(protected.json?["authenticatedBy"]?.stringValue, "sso")
        let refused = try await client.send(.GET, "/mobile/platform/sso/exchange-token", authorization: "Bearer nope")
        XCTAssertEqual(refused.status, 401)
    }

    /// Two backends start side by side on different free ports of 127.0.0.1.
    func testBackendsListenOnFreeLoopbackPorts() async throws {
        let second = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
        XCTAssertEqual(second.baseURL.host, "127.0.0.1")
        XCTAssertNotEqual(second.baseURL.port, backend.baseURL.port)
        await second.stop()
    }
}
