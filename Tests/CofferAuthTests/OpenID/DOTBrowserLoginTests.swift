@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// Browser logins (authorization code with PKCE on the loopback listener) against
/// django-oauth-toolkit, with its login and consent pages played by ``BrowserPlayer``.
final class DOTBrowserLoginTests: XCTestCase {
    var server: OIDCTestServer!
    var fixture: DOTFixture!

    override func setUp() async throws {
        server = try OIDCTestServer.shared(.interop)
        fixture = try DOTFixture(server: server)
    }

    /// The public client without a consent page: DOT redirects to the listener with a code, the
    /// state and `iss`; the code is exchanged with the PKCE verifier; the ID token (verified)
    /// names the user; the session is stored, with a refresh token and never the password.
    func testBrowserLoginWithPKCE() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        let events = client.events()
        let (callback, result) = try await fixture.browserLogin(client)
        let identity = try result.get()

        XCTAssertEqual(callback.status, 200)
        XCTAssertTrue(callback.body.contains("Logged in"))
        XCTAssertEqual(callback.parameters["iss"], server.issuer.absoluteString)
        XCTAssertNotNil(callback.parameters["code"])
        XCTAssertEqual(identity.preferredUsername, "coffer")
        XCTAssertEqual(identity.id, "1")
        XCTAssertEqual(identity.name, "Coffer Tester")
        XCTAssertNil(identity.email, "the email scope was not asked for")
        let identityNow = try await client.user
        XCTAssertEqual(identityNow, identity)

        let status = try await client.status
        XCTAssertTrue(status.isAuthorized)
        XCTAssertTrue(status.refreshTokenHeld)
        let session = try XCTUnwrap(try fixture.storedSession(client))
        XCTAssertNotNil(session.refreshToken)
        XCTAssertEqual(session.identity, identity)
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)

        // The access token works at DOT.
        let token = try await client.accessToken()
        let userinfo = try await server.userinfo(accessToken: token.value)
        XCTAssertEqual(userinfo.status, 200)
        XCTAssertEqual(userinfo.jsonString("sub"), "1")
        let reported = await reportedEvents(events, count: 1)
        XCTAssertEqual(reported, [.loggedIn])
    }

    /// With the email scope, the ID token carries the email; without profile, no names.
    func testScopeDecidesTheClaims() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        let identity = try await fixture.browserLogin(client, scope: "openid email").result.get()
        XCTAssertEqual(identity.email, "coffer@example.test")
        XCTAssertNil(identity.preferredUsername)
        XCTAssertEqual(identity.id, "1")
        try fixture.assertNoPasswordStored()
    }

    /// The client with a consent page: the user authorizes, the login completes.
    func testConsentApproved() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.nativeConsent)
        let identity = try await fixture.browserLogin(client, decision: .approve).result.get()
        XCTAssertEqual(identity.preferredUsername, "coffer")
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
    }

    /// The user cancels on the consent page: DOT redirects with `error=access_denied` (and no
    /// `iss`: DOT adds it to successful responses only), the login ends with `accessDenied`, and
    /// nothing is stored.
    func testConsentDeniedIsAccessDenied() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.nativeConsent)
        let (callback, result) = try await fixture.browserLogin(client, decision: .deny)
        XCTAssertEqual(callback.parameters["error"], "access_denied")
        XCTAssertNil(callback.parameters["iss"], "DOT sends no iss with errors")
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .accessDenied) }
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
        let identity = try await client.user
        XCTAssertNil(identity)
    }

    /// A confidential client authenticates at the token endpoint with HTTP Basic.
    func testConfidentialClient() async throws {
        let client = fixture.client(
            try await fixture.discover(), clientID: server.clients.confidential, clientSecret: server.clients.confidentialSecret)
        let identity = try await fixture.browserLogin(client).result.get()
        XCTAssertEqual(identity.preferredUsername, "coffer")
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
    }
}

extension DOTBrowserLoginTests {
    /// A plain OAuth login (no `openid` scope): DOT returns no ID token, the client asks for
    /// none, and the session holds tokens but no identity.
    func testOAuthLoginWithoutOpenID() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        _ = try await fixture.browserLogin(client, scope: "profile offline_access").result.get()
        let session = try XCTUnwrap(try fixture.storedSession(client))
        XCTAssertNil(session.identity)
        XCTAssertNotNil(session.refreshToken)
        let status = try await client.status
        XCTAssertTrue(status.isLoggedIn)
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)
    }

    /// A wrong password never gets past DOT's login page; cancelling the login ends it.
    func testWrongPasswordStopsAtTheLoginPage() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        let login = try await client.startBrowserLogin()
        let player = BrowserPlayer(username: server.username, password: "not-the-password")
        do {
            _ = try await player.logIn(at: login.url, redirectURI: login.redirectURI)
            XCTFail("the login went through with a wrong password")
        } catch let failure as BrowserPlayer.Failure {
            guard case .loginRefused = failure else { return XCTFail("\(failure)") }
        }
        login.cancel()
        await XCTAssertThrowsAuthError(.cancelled) { try await login.complete(timeout: .seconds(5)) }
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
    }
}

extension DOTBrowserLoginTests {
    /// A scope DOT does not know: it redirects with `error=invalid_scope` (after the login page),
    /// and the login ends with that code.
    func testUnknownScopeEndsTheLoginWithItsError() async throws {
        let client = fixture.client(try await fixture.discover(), clientID: server.clients.native)
        let (callback, result) = try await fixture.browserLogin(client, scope: "openid no-such-scope")
        XCTAssertEqual(callback.parameters["error"], "invalid_scope")
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? AuthError, .authorizationError(code: "invalid_scope")) }
        XCTAssertEqual(try fixture.storedSessionCount(), 0)
    }
}

/// A provider that matches the redirect URI exactly, port included: django-oauth-toolkit with a
/// client whose one redirect URI is `http://localhost:PORT/coffer/callback` (DOT relaxes the
/// port for 127.0.0.1 and [::1] only, RFC 8252 §7.3).
final class DOTExactRedirectURITests: XCTestCase {
    /// With ``OpenIDClient/Configuration/redirectURI`` set to the registered URI the login
    /// completes; with the default random port DOT refuses the redirect URI and never sends
    /// the browser back.
    func testAnExactRedirectURILogsIn() async throws {
        let port = try LoopbackPort.free()
        let registered = "http://localhost:\(port)/coffer/callback"
        let server = try OIDCTestServer.start(OIDCTestServer.Options(extraArguments: ["--exact-redirect-uri", registered]))
        defer { server.stop() }
        let fixture = try DOTFixture(server: server)
        let provider = try await fixture.discover()

        let redirectURI = try LoopbackRedirectURI(registered)
        let exact = fixture.client(provider, clientID: "coffer-exact", configure: { $0.redirectURI = redirectURI })
        let (callback, result) = try await fixture.browserLogin(exact)
        XCTAssertEqual(callback.status, 200)
        XCTAssertEqual(callback.url.port, port)
        XCTAssertEqual(try result.get().id, "1")

        let random = fixture.client(provider, clientID: "coffer-exact")
        do {
            _ = try await fixture.browserLogin(random)
            XCTFail("DOT accepted a redirect URI it does not have registered")
        } catch let failure as BrowserPlayer.Failure {
            XCTAssertTrue("\(failure)".lowercased().contains("redirect"), "\(failure)")
        }
    }
}
