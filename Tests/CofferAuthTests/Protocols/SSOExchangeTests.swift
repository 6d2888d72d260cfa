@testable import CofferAuth
import CofferDevBackend
import XCTest

final class SSOExchangeTests: AuthTestCase {
    let thirdPartyToken = DevBackend.Configuration.defaultSSOToken.token

    /// OMC's form: the stored exchanged token survives a restart and names the SSO user at /protected.
    func testOMCExchangeStoresTheTokenForTheNextStart() async throws {
        let auth = fixture.authorization()
        try await auth.authenticateSSOTokenExchange(thirdPartyToken, storeAccessToken: true)
        XCTAssertEqual(fixture.backend.statistics.exchangeRequests, 1)
        XCTAssertEqual(try fixture.storedSession()?.method, .ssoExchange)

        let restarted = fixture.authorization()
        let loaded = await restarted.loadSSOTokenExchange()
        XCTAssertTrue(loaded)
        let reply = try await restarted.get(fixture.backend.protectedURL)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, DevBackend.Configuration.defaultSSOToken.user)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["authenticatedBy"]?.stringValue, "sso")
    }

    /// Without `storeAccessToken`, the exchanged token works in memory but nothing is stored.
    func testExchangeWithoutStoringKeepsTheTokenInMemoryOnly() async throws {
        let auth = fixture.authorization()
        try await auth.authenticateSSOTokenExchange(thirdPartyToken, storeAccessToken: false)
        XCTAssertNil(try fixture.storedSession())
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
        let loaded = await fixture.authorization().loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }

    /// The RFC 8693 form, chosen in the configuration, posts a token-exchange grant to the token endpoint.
    func testRFC8693ExchangeUsesTheTokenEndpoint() async throws {
        let auth = fixture.authorization(tokenExchange: .rfc8693())
        try await auth.authenticateSSOTokenExchange(thirdPartyToken, storeAccessToken: true)
        XCTAssertEqual(fixture.backend.statistics.exchangeRequests, 0)
        XCTAssertEqual(fixture.backend.statistics.tokenRequests, 1)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, DevBackend.Configuration.defaultSSOToken.user)
    }

    /// An unknown third-party token is `invalidCredentials` in both forms, and nothing is stored.
    func testUnknownThirdPartyTokenIsInvalidCredentials() async throws {
        for form in [TokenExchangeForm.omc, .rfc8693()] {
            let auth = fixture.authorization(tokenExchange: form)
            await XCTAssertThrowsAuthError(.invalidCredentials) {
                try await auth.authenticateSSOTokenExchange("not-a-known-token", storeAccessToken: true)
            }
        }
        XCTAssertNil(try fixture.storedSession())
    }

    /// clearSSOTokenExchange removes the stored SSO token; the next start must authenticate again.
    func testClearRemovesTheStoredToken() async throws {
        let auth = fixture.authorization()
        try await auth.authenticateSSOTokenExchange(thirdPartyToken, storeAccessToken: true)
        try await auth.clearSSOTokenExchange()
        XCTAssertNil(try fixture.storedSession())
        await XCTAssertThrowsAuthError(.notAuthenticated) { try await auth.authorizationHeaders() }
        let loaded = await fixture.authorization().loadSSOTokenExchange()
        XCTAssertFalse(loaded)
    }
}
