import AsyncHTTPClient
@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// Refresh, rotation, reuse protection and revocation against django-oauth-toolkit. Access
/// tokens expire by moving the client's clock (the fixture's ``TestClock``) two hours ahead;
/// the server's ID tokens last a day (``OIDCTestServer/Options/interop``), so refreshed ones
/// still verify.
final class DOTTokenLifecycleTests: XCTestCase {
    var server: OIDCTestServer!
    var fixture: DOTFixture!

    override func setUp() async throws {
        server = try OIDCTestServer.shared(.interop)
        fixture = try DOTFixture(server: server)
    }

    private func loggedInClient(revocation: Bool = true) async throws -> OpenIDClient {
        let provider = revocation ? try await fixture.discoverWithDOTEndpoints() : try await fixture.discover()
        let client = fixture.client(provider, clientID: server.clients.native)
        _ = try await fixture.browserLogin(client).result.get()
        return client
    }

    /// An expired access token is refreshed; DOT rotates the refresh token, and the client
    /// stores the new one (twice in a row); the old access token is dead at DOT, the new one works.
    func testRefreshRotatesTheStoredRefreshToken() async throws {
        let client = try await loggedInClient()
        let events = client.events()
        let first = try XCTUnwrap(try fixture.storedSession(client))
        let firstRefresh = try XCTUnwrap(first.refreshToken)
        let firstAccess = try XCTUnwrap(first.accessToken)

        fixture.clock.advance(by: 2 * 3600)
        let second = try await client.accessToken()
        XCTAssertTrue(second.value != firstAccess.value, "a new token")
        let stored = try XCTUnwrap(try fixture.storedSession(client))
        let secondRefresh = try XCTUnwrap(stored.refreshToken)
        XCTAssertTrue(secondRefresh != firstRefresh, "a new token")
        XCTAssertEqual(stored.accessToken, second)
        XCTAssertEqual(stored.identity, first.identity, "the refreshed ID token names the same user")
        let oldAccess = try await server.userinfo(accessToken: firstAccess.value)
        XCTAssertEqual(oldAccess.status, 401)
        let newAccess = try await server.userinfo(accessToken: second.value)
        XCTAssertEqual(newAccess.status, 200)

        fixture.clock.advance(by: 2 * 3600)
        let third = try await client.accessToken()
        XCTAssertTrue(third.value != second.value, "a new token")
        let thirdRefresh = try XCTUnwrap(try fixture.storedSession(client)?.refreshToken)
        XCTAssertTrue(thirdRefresh != secondRefresh, "a new token")
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
        let reported = await reportedEvents(events, count: 2)
        XCTAssertEqual(reported, [.refreshed, .refreshed])
    }

    /// Refreshes that race, in one client and in two clients on the same store (as two
    /// processes would be: they take turns on the lock file), spend the refresh token once:
    /// had it been spent twice, DOT's reuse protection would have revoked the family.
    func testConcurrentRefreshesSpendTheRefreshTokenOnce() async throws {
        let first = try await loggedInClient()
        let second = fixture.client(first.provider, clientID: server.clients.native)
        let before = try XCTUnwrap(try fixture.storedSession(first)?.refreshToken)
        fixture.clock.advance(by: 2 * 3600)

        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for client in [first, second, first, second, first, second] {
                group.addTask { try await client.accessToken() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens.map(\.value)).count, 1, "one refresh for all six callers")
        let after = try XCTUnwrap(try fixture.storedSession(first)?.refreshToken)
        XCTAssertTrue(after != before, "a new token")
        let userinfo = try await server.userinfo(accessToken: tokens[0].value)
        XCTAssertEqual(userinfo.status, 200, "the family was not revoked")
        fixture.clock.advance(by: 2 * 3600)
        let next = try await second.accessToken()
        XCTAssertTrue(next.value != tokens[0].value, "a new token")
    }

    /// `send` puts the access token on requests to the session's API origin (here DOT's own
    /// UserInfo endpoint), refreshing it first when it has expired.
    func testSendAuthorizesRequestsToTheAPIOrigin() async throws {
        let client = try await loggedInClient()
        let request = HTTPClientRequest(url: server.userinfoEndpoint.absoluteString)
        let reply = try await client.send(request)
        XCTAssertEqual(reply.status, 200)
        fixture.clock.advance(by: 2 * 3600)
        let refreshed = try await client.send(request)
        XCTAssertEqual(refreshed.status, 200)
        XCTAssertEqual(JSONValue(parsing: refreshed.body)?["preferred_username"]?.stringValue, "coffer")
    }

    /// A rotated refresh token replayed (as a thief would) is refused, and DOT revokes its
    /// whole family: the client's next refresh is refused too, so the session is cleared and
    /// the app told to log in again.
    func testReplayedRefreshTokenEndsTheSession() async throws {
        let client = try await loggedInClient()
        let events = client.events()
        let oldRefresh = try XCTUnwrap(try fixture.storedSession(client)?.refreshToken)
        fixture.clock.advance(by: 2 * 3600)
        _ = try await client.accessToken()
        let currentRefresh = try XCTUnwrap(try fixture.storedSession(client)?.refreshToken)
        XCTAssertTrue(currentRefresh != oldRefresh, "a new token")

        let replay = try await server.refresh(oldRefresh, clientID: server.clients.native)
        XCTAssertEqual(replay.status, 400)
        XCTAssertEqual(replay.jsonString("error"), "invalid_grant")

        fixture.clock.advance(by: 2 * 3600)
        await XCTAssertThrowsAuthError(.reauthenticationRequired) { try await client.accessToken() }
        let identity = try await client.user
        XCTAssertNil(identity)
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
        let afterFamilyRevoked = try await server.refresh(currentRefresh, clientID: server.clients.native)
        XCTAssertEqual(afterFamilyRevoked.jsonString("error"), "invalid_grant")
        let reported = await reportedEvents(events, count: 2)
        XCTAssertEqual(reported, [.refreshed, .reauthenticationRequired])
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await client.accessToken() }
    }

    /// Logout revokes the refresh token at DOT's RFC 7009 endpoint: afterwards DOT refuses it,
    /// and the access token, and the store holds nothing.
    func testLogoutRevokesAtTheProvider() async throws {
        let client = try await loggedInClient()
        let session = try XCTUnwrap(try fixture.storedSession(client))
        let refreshToken = try XCTUnwrap(session.refreshToken)
        let accessToken = try XCTUnwrap(session.accessToken)
        let events = client.events()

        let report = try await client.logout()
        XCTAssertTrue(report.revoked)
        XCTAssertTrue(report.removedStoredSession)
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
        let identity = try await client.user
        XCTAssertNil(identity)

        let refresh = try await server.refresh(refreshToken, clientID: server.clients.native)
        XCTAssertEqual(refresh.status, 400)
        XCTAssertEqual(refresh.jsonString("error"), "invalid_grant")
        let userinfo = try await server.userinfo(accessToken: accessToken.value)
        XCTAssertEqual(userinfo.status, 401)
        let reported = await reportedEvents(events, count: 1)
        XCTAssertEqual(reported, [.loggedOut])
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await client.accessToken() }
    }

    /// With DOT's stock discovery (no revocation endpoint) logout can only forget the session:
    /// the refresh token stays valid at DOT. Apps that want revocation name the endpoint.
    func testLogoutWithoutARevocationEndpointOnlyForgets() async throws {
        let client = try await loggedInClient(revocation: false)
        let refreshToken = try XCTUnwrap(try fixture.storedSession(client)?.refreshToken)
        let report = try await client.logout()
        XCTAssertFalse(report.revoked)
        XCTAssertTrue(report.removedStoredSession)
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
        let refresh = try await server.refresh(refreshToken, clientID: server.clients.native)
        XCTAssertEqual(refresh.status, 200, "not revoked: DOT still honours it")
    }
}

extension DOTTokenLifecycleTests {
    /// With the provider gone, logout still clears the stored session, and reports the two
    /// revocations it could not make. (A 1 s deadline per request: against a closed port,
    /// AsyncHTTPClient retries the connection until its 5 s connect timeout.)
    func testLogoutWithTheProviderDownClearsTheSessionAndSaysWhatFailed() async throws {
        let server = try OIDCTestServer.start(.interop)  // its own: this test stops it
        let fixture = try DOTFixture(server: server)
        let client = fixture.client(try await fixture.discoverWithDOTEndpoints(), clientID: server.clients.native, configure: {
            $0.requestTimeout = .seconds(1)
        })
        _ = try await fixture.browserLogin(client).result.get()
        server.stop()

        await XCTAssertThrowsAuthError(matching: { error in
            guard case .logoutIncomplete(let failures) = error else { return false }
            return Set(failures.map(\.step)) == [.revokeRefreshToken, .revokeToken]
        }) { try await client.logout() }
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
        let identity = try await client.user
        XCTAssertNil(identity)
    }
}

/// Tokens DOT refuses before the client expects it to: a server whose access tokens last 1 s,
/// while the client's clock stands still.
final class DOTRefusedTokenTests: XCTestCase {
    /// The resource (DOT's UserInfo) refuses the access token as expired while the client
    /// still holds it valid: `send` refreshes once and retries, and the retry succeeds.
    func testSendRefreshesATokenTheResourceRefuses() async throws {
        let server = try OIDCTestServer.shared(OIDCTestServer.Options(accessTokenTTL: 1, idTokenTTL: 86_400))
        let fixture = try DOTFixture(server: server)
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        _ = try await fixture.browserLogin(client).result.get()
        let first = try await client.accessToken()
        try await Task.sleep(for: .milliseconds(1_300))  // DOT's 1 s lifetime passes; the client's clock does not move

        let reply = try await client.send(HTTPClientRequest(url: server.userinfoEndpoint.absoluteString))
        XCTAssertEqual(reply.status, 200, "the retry carries a refreshed token")
        let second = try await client.accessToken()
        XCTAssertTrue(second.value != first.value, "a new token")
        XCTAssertTrue(try fixture.storedSession(client)?.accessToken?.value == second.value, "the refreshed token is stored")
    }
}
