import AsyncHTTPClient
import CofferTestSupport
@testable import CofferAuth
import Foundation
import XCTest

/// Coffer's OAuth client against an independent, standard server: oauthlib's reference
/// `Server` (RFC 6749, 6750, 7009), run by Python on 127.0.0.1 (Tests/CofferAuthTests/Fixtures/oauthlib_server.py).
final class OAuthInteropTests: XCTestCase {
    var fixture: AuthFixture!
    var server: ChildProcess!
    var baseURL: URL!

    static let client = OAuthlibServer.client
    static let user = OAuthlibServer.user

    override func setUp() async throws {
        let started = try OAuthlibServer()
        server = started.process
        baseURL = started.baseURL
        fixture = try await AuthFixture.start()
    }

    override func tearDown() async throws {
        server?.stop()
        await fixture?.stop()
    }

    private func backend(scope: String? = nil, clientSecret: String = OAuthInteropTests.client.secret) -> MobileBackend {
        MobileBackend(
            baseURL: baseURL, backendID: "interop",
            authentication: .oauth(tokenEndpoint: baseURL.appendingPathComponent("token"), clientID: Self.client.id, clientSecret: clientSecret),
            revocationEndpoint: baseURL.appendingPathComponent("revoke"), scope: scope)
    }

    /// The password grant with client Basic auth (form-encoded id and secret) gets a Bearer token the resource accepts.
    func testPasswordGrantAndBearerTokenWork() async throws {
        let auth = fixture.authorization(backend())
        try await auth.authenticate(userName: Self.user.name, password: Self.user.password)
        let token = try XCTUnwrap(try fixture.storedSession()?.token)
        XCTAssertEqual(token.expiresAt.timeIntervalSince(token.issuedAt), 600, accuracy: 0.001)

        let reply = try await auth.get(baseURL.appendingPathComponent("me"))
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, Self.user.name)
    }

    /// The server's standard error replies map to typed errors: invalid_grant, invalid_client, invalid_scope.
    func testStandardErrorRepliesAreTyped() async throws {
        await XCTAssertThrowsAuthError(.invalidCredentials) {
            try await self.fixture.authorization(self.backend()).authenticate(userName: Self.user.name, password: "wrong")
        }
        await XCTAssertThrowsAuthError(.invalidCredentials) {
            try await self.fixture.authorization(self.backend(clientSecret: "wrong")).authenticate(userName: Self.user.name, password: Self.user.password)
        }
        await XCTAssertThrowsAuthError(.oauthError(code: "invalid_scope", status: 400)) {
            try await self.fixture.authorization(self.backend(scope: "forbidden")).authenticate(userName: Self.user.name, password: Self.user.password)
        }
        XCTAssertNil(try fixture.storedSession())
    }

    /// Anonymous access uses the client-credentials grant.
    func testClientCredentialsGrant() async throws {
        let auth = fixture.authorization(backend())
        try await auth.authenticateAnonymous()
        let reply = try await auth.get(baseURL.appendingPathComponent("me"))
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["client"]?.stringValue, Self.client.id)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"], .null)
    }

    /// Logout revokes the token at the server's RFC 7009 endpoint: the old token is refused afterwards.
    func testLogoutRevokesAtTheStandardEndpoint() async throws {
        let auth = fixture.authorization(backend())
        try await auth.authenticate(userName: Self.user.name, password: Self.user.password)
        let headers = try await auth.authorizationHeaders()
        let report = try await auth.logout()
        XCTAssertTrue(report.revoked)

        var request = HTTPClientRequest(url: baseURL.appendingPathComponent("me").absoluteString)
        headers.apply(to: &request)
        let reply = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        XCTAssertEqual(reply.status.code, 401)
    }
}
