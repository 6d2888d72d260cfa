import Coffer
@testable import CofferAuth
import CofferDevBackend
import XCTest

final class StoredSessionTests: AuthTestCase {


    /// A second facade on the same keychain (a restarted app) loads the session with no password and no network.
    func testANewFacadeLoadsTheStoredSessionWithoutTheNetwork() async throws {
        try await fixture.logIn(fixture.authorization())
        let requestsBefore = fixture.backend.statistics.tokenRequests

        let restarted = fixture.authorization()
        let loaded = await restarted.loadSSOTokenExchange()
        XCTAssertTrue(loaded)
        let reply = try await restarted.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(fixture.backend.statistics.tokenRequests, requestsBefore)
    }

    /// With no stored session, loading returns false and requests are `notAuthenticated`.
    func testLoadingWithNoStoredSessionReturnsFalse() async throws {
        let auth = fixture.authorization()
        let loaded = await auth.loadSSOTokenExchange()
        XCTAssertFalse(loaded)
        let result = try await auth.loadStoredSession()
        XCTAssertEqual(result, .missing)
    }

    /// An expired token does not load; within the leeway before expiry it already counts as expired.
    func testExpiredTokenDoesNotLoadAndLeewayCountsAsExpired() async throws {
        try await fixture.logIn(fixture.authorization())
        let lifetime = fixture.backend.configuration.tokenLifetime
        let auth = fixture.authorization { $0.clockSkewLeeway = .seconds(60) }

        fixture.clock.advance(by: lifetime - 61)
        var loaded = await auth.loadSSOTokenExchange()
        XCTAssertTrue(loaded, "61 s before expiry, with a 60 s leeway, the token is still good")

        fixture.clock.advance(by: 2)
        loaded = await auth.loadSSOTokenExchange()
        XCTAssertFalse(loaded, "59 s before expiry, with a 60 s leeway, the token counts as expired")
        let result = try await auth.loadStoredSession()
        XCTAssertEqual(result, .expired(renewable: true))
    }

    /// A token stored for another backend id, base URL or version does not load, and requests say `backendMismatch`.
    func testSessionOfAnotherBackendOrVersionDoesNotLoad() async throws {
        try await fixture.logIn(fixture.authorization(fixture.backend.mobileBackend(version: "1.0")))

        var otherVersion = fixture.backend.mobileBackend(version: "2.0")
        var otherID = fixture.backend.mobileBackend(version: "1.0")
        otherID.backendID = "another-backend"
        var otherURL = fixture.backend.mobileBackend(version: "1.0")
        otherURL.baseURL = URL(string: "http://127.0.0.1:1")!
        for backend in [otherVersion, otherID, otherURL] {
            let auth = fixture.authorization(backend)
            let loaded = await auth.loadSSOTokenExchange()
            XCTAssertFalse(loaded, "\(backend)")
            await XCTAssertThrowsAuthError(.backendMismatch) { try await auth.authorizationHeaders() }
        }
        otherVersion.version = "1.0"
        let same = await fixture.authorization(otherVersion).loadSSOTokenExchange()
        XCTAssertTrue(same)
    }

    /// clearSSOTokenExchange removes another backend's session, after which a new login on this backend works.
    func testClearingRemovesAnotherBackendsSession() async throws {
        try await fixture.logIn(fixture.authorization(fixture.backend.mobileBackend(version: "1.0")))
        let upgraded = fixture.authorization(fixture.backend.mobileBackend(version: "2.0"))
        try await upgraded.clearSSOTokenExchange()
        XCTAssertNil(try fixture.storedSession())
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await upgraded.authorizationHeaders() }
        try await fixture.logIn(upgraded)
        let loaded = await fixture.authorization(fixture.backend.mobileBackend(version: "2.0")).loadSSOTokenExchange()
        XCTAssertTrue(loaded)
    }

    /// Without `expires_in`, a token lasts the configured default (6 h unless set, like Security_TokenExchangeTimeoutSecs).
    func testTokenWithoutExpiresInGetsTheConfiguredLifetime() async throws {
        await fixture.stop()
        fixture = try await AuthFixture.start { $0.advertisesLifetime = false }
        let auth = fixture.authorization()
        try await fixture.logIn(auth)
        let token = try XCTUnwrap(try fixture.storedSession()?.token)
        XCTAssertEqual(token.expiresAt.timeIntervalSince(token.issuedAt), 6 * 3600, accuracy: 0.001)

        let custom = fixture.authorization { $0.defaultTokenLifetime = .seconds(120) }
        try await custom.authenticateSSOTokenExchange(DevBackend.Configuration.defaultSSOToken.token, storeAccessToken: true)
        let exchanged = try XCTUnwrap(try fixture.storedSession()?.token)
        XCTAssertEqual(exchanged.expiresAt.timeIntervalSince(exchanged.issuedAt), 120, accuracy: 0.001)
    }

    /// An expired OAuth token renews by itself from the stored credentials, and the new token is stored.
    func testExpiredOAuthTokenRenewsFromStoredCredentials() async throws {
        try await fixture.logIn(fixture.authorization())
        let oldToken = try XCTUnwrap(try fixture.storedSession()?.token)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)

        let auth = fixture.authorization()
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        let newToken = try XCTUnwrap(try fixture.storedSession()?.token)
        XCTAssertNotEqual(newToken.value, oldToken.value)
        XCTAssertGreaterThan(newToken.expiresAt, fixture.clock.now)
    }

    /// An expired SSO token cannot renew: requests fail with `tokenExpired`.
    func testExpiredSSOTokenIsTokenExpired() async throws {
        let auth = fixture.authorization()
        try await auth.authenticateSSOTokenExchange(DevBackend.Configuration.defaultSSOToken.token, storeAccessToken: true)
        fixture.clock.advance(by: fixture.backend.configuration.exchangeTokenLifetime + 1)
        await XCTAssertThrowsAuthError(.tokenExpired) { try await auth.authorizationHeaders() }
        let loaded = await fixture.authorization().loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }

    /// A keychain that cannot be read is a typed storage error, never "no session".
    func testLockedKeychainIsAStorageErrorNotAbsence() async throws {
        try await fixture.logIn(fixture.authorization())
        fixture.vault.lock()
        let auth = fixture.authorization()
        await XCTAssertThrowsAuthError(.storage(.locked)) { try await auth.loadStoredSession() }
        await XCTAssertThrowsAuthError(.storage(.locked)) { try await auth.authorizationHeaders() }
        let loaded = await auth.loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }

    /// The descriptions of everything that holds a secret show no password or token.
    func testDescriptionsRedactSecrets() async throws {
        let auth = fixture.authorization()
        try await fixture.logIn(auth)
        let stored = try XCTUnwrap(try fixture.storedSession())
        let token = try XCTUnwrap(stored.token)
        let headers = try await auth.authorizationHeaders()
        let texts = [
            "\(stored)", String(reflecting: stored), "\(token)", String(reflecting: token), "\(headers)",
            String(reflecting: headers), "\(fixture.backend.mobileBackend())", String(reflecting: fixture.backend.mobileBackend()),
            "\(BasicCredentials(user: "u", password: AuthFixture.user.password))",
        ]
        let secrets = [AuthFixture.user.password, token.value, DevBackend.Configuration.defaultClient.secret]
        for text in texts {
            for secret in secrets { XCTAssertFalse(text.contains(secret), text) }
        }
        var dumped = ""
        dump(stored, to: &dumped)
        dump(fixture.backend.mobileBackend(), to: &dumped)
        for secret in secrets { XCTAssertFalse(dumped.contains(secret)) }
    }
}
