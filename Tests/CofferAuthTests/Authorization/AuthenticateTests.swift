import Coffer
@testable import CofferAuth
import CofferDevBackend
import XCTest

final class AuthenticateTests: AuthTestCase {

    /// An OAuth password login stores the user name, the token and the refresh token before
    /// returning, never the password, and the token opens /protected.
    func testOAuthPasswordLoginStoresSessionAndAuthorizesRequests() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)

        let stored = try XCTUnwrap(try fixture.storedSession())
        XCTAssertEqual(stored.method, .oauth)
        XCTAssertEqual(stored.userName, AuthFixture.user.name)
        XCTAssertNil(stored.password)
        XCTAssertNotNil(stored.refreshToken)
        XCTAssertNotNil(stored.token)
        let isAuthorized = await auth.isAuthorized
        let userName = await auth.userName
        XCTAssertTrue(isAuthorized)
        XCTAssertEqual(userName, AuthFixture.user.name)

        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, AuthFixture.user.name)
    }

    /// The headers carry a Bearer token and the backend id; for HTTP Basic, Basic credentials.
    func testAuthorizationHeadersCarryCredentialsAndBackendID() async throws {
        let oauth = fixture.authorization()
        try await oauth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let bearer = try await oauth.authorizationHeaders()
        XCTAssertTrue(bearer.authorization.hasPrefix("Bearer "))
        XCTAssertEqual(bearer.backendID, fixture.backend.configuration.backendID)

        let basic = fixture.authorization(oauth: false)
        try await basic.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let headers = try await basic.authorizationHeaders()
        XCTAssertEqual(headers.authorization, BasicCredentials(user: AuthFixture.user.name, password: AuthFixture.user.password).headerValue)
        XCTAssertEqual(headers.fields.map(\.name), ["Authorization", "Oracle-Mobile-Backend-ID"])
    }

    /// HTTP Basic credentials are checked by the backend first; a wrong password stores nothing.
    func testHTTPBasicLoginIsCheckedAgainstTheBackend() async throws {
        let auth = fixture.authorization(oauth: false)
        await XCTAssertThrowsAuthError(.invalidCredentials) {
            try await auth.authenticate(userName: AuthFixture.user.name, password: "wrong")
        }
        XCTAssertNil(try fixture.storedSession())
        XCTAssertEqual(fixture.backend.statistics.basicChecks, 1)

        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let stored = try XCTUnwrap(try fixture.storedSession())
        XCTAssertEqual(stored.method, .httpBasic)
        XCTAssertEqual(stored.password, AuthFixture.user.password)
        XCTAssertNil(stored.token)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["authenticatedBy"]?.stringValue, "basic")
        let user = try await auth.currentUser()
        XCTAssertEqual(user.id, AuthFixture.user.name, "GET /mobile/platform/users/~")
        XCTAssertEqual(fixture.backend.statistics.currentUserRequests, 1)
    }

    /// A wrong OAuth password is `invalidCredentials` (RFC 6749 invalid_grant) and stores nothing.
    func testWrongOAuthPasswordIsInvalidCredentials() async throws {
        let auth = fixture.authorization()
        await XCTAssertThrowsAuthError(.invalidCredentials) {
            try await auth.authenticate(userName: AuthFixture.user.name, password: "wrong")
        }
        XCTAssertNil(try fixture.storedSession())
        let isAuthorized = await auth.isAuthorized
        XCTAssertFalse(isAuthorized)
    }

    /// A wrong client secret is `invalidCredentials` (RFC 6749 invalid_client, HTTP 401).
    func testWrongClientSecretIsInvalidCredentials() async throws {
        var backend = fixture.backend.mobileBackend()
        backend.authentication = .oauth(tokenEndpoint: fixture.backend.tokenEndpoint, clientID: "coffer-cli", clientSecret: "nope")
        let auth = fixture.authorization(backend)
        await XCTAssertThrowsAuthError(.invalidCredentials) {
            try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        }
    }

    /// Without a login, requests fail with `notAuthenticated` and nothing is sent.
    func testRequestsBeforeLoginAreNotAuthenticated() async throws {
        let auth = fixture.authorization()
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await auth.authorizationHeaders() }
        XCTAssertEqual(fixture.backend.statistics.resourceRequests, 0)
    }

    /// Anonymous access uses the client-credentials grant; the token opens /anonymous but not /protected.
    func testAnonymousAccessUsesClientCredentials() async throws {
        let auth = fixture.authorization()
        try await auth.authenticateAnonymous()
        let status = await auth.status
        XCTAssertEqual(status.method, .anonymous)
        XCTAssertNil(status.userName)
        XCTAssertNil(try fixture.storedSession(), "anonymous tokens stay in memory")

        let reply = try await auth.get(fixture.backend.anonymousURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["client"]?.stringValue, DevBackend.Configuration.defaultClient.id)
        let denied = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(denied.status, 401)
    }

    /// Anonymous access over HTTP Basic sends the anonymous key, with no token request.
    func testAnonymousAccessOverBasicUsesTheAnonymousKey() async throws {
        let auth = fixture.authorization(oauth: false)
        try await auth.authenticateAnonymous()
        let reply = try await auth.get(fixture.backend.anonymousURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(fixture.backend.statistics.tokenRequests, 0)
    }

    /// Credentials are only ever sent to the backend's own origin.
    func testRequestsToAnotherOriginAreRefused() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
            try await auth.get(URL(string: "http://127.0.0.2:9/steal")!)
        }
    }

    /// A token the backend no longer accepts is renewed once from the stored credentials, and the request retried.
    func testRefusedTokenIsRenewedAndTheRequestRetried() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let before = fixture.backend.statistics.tokenRequests
        fixture.backend.faults.inject(.status(401), on: .resource)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(fixture.backend.statistics.tokenRequests, before + 1)
    }

    /// Cancelling a login stops it at once with `cancelled`, and stores nothing.
    func testCancelledLoginStopsAtOnceAndStoresNothing() async throws {
        let auth = fixture.authorization()
        fixture.backend.faults.inject(.hang, on: .token)
        let login = Task { try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = ContinuousClock.now
        login.cancel()
        let result = await login.result
        XCTAssertLessThan(ContinuousClock.now - cancelledAt, .milliseconds(300))
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .cancelled) }
        XCTAssertNil(try fixture.storedSession())
    }
}
