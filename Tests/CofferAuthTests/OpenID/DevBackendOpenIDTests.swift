import CofferBase
import AsyncHTTPClient
import Coffer
@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// `OpenIDClient` against the dev backend's OpenID provider: the same flows as against
/// django-oauth-toolkit, plus every fault the dev backend can inject.
final class DevBackendOpenIDTests: XCTestCase {
    var fixture: AuthFixture!
    let locks = TemporaryFolder()

    override func setUp() async throws {
        fixture = try await AuthFixture.start { configuration in
            configuration.openID.deviceInterval = 0
            configuration.openID.idTokenLifetime = 86_400
        }
    }

    override func tearDown() async throws {
        await fixture?.stop()
    }

    private var user: (name: String, password: String) { AuthFixture.user }

    private func provider() async throws -> OpenIDProvider {
        try await OpenIDProvider.discover(issuer: fixture.backend.issuer, configuration: configuration())
    }

    private func configuration(sleep: (@Sendable (Duration) async throws -> Void)? = nil) -> OpenIDClient.Configuration {
        let clock = fixture.clock
        return OpenIDClient.Configuration(
            requestTimeout: .seconds(10), loginTimeout: .seconds(30), refreshLockTimeout: .seconds(10), lockFolder: locks.url,
            now: { clock.now }, sleep: sleep ?? { _ in }, logger: quietLogger)
    }

    private func client(sleep: (@Sendable (Duration) async throws -> Void)? = nil) async throws -> OpenIDClient {
        OpenIDClient(provider: try await provider(), clientID: "coffer-native", store: fixture.vault, configuration: configuration(sleep: sleep))
    }

    /// A browser login through the dev backend's HTML login form.
    private func browserLogin(_ client: OpenIDClient) async throws -> (BrowserPlayer.Callback, Result<AuthenticatedUser, AuthError>) {
        let login = try await client.startBrowserLogin()
        let callback = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: login.url, redirectURI: login.redirectURI)
        do { return (callback, .success(try await login.complete(timeout: .seconds(10)))) } catch { return (callback, .failure(error)) }
    }

    private func sessionCount() throws -> Int {
        try fixture.vault.items(matching: ItemQuery(service: OpenIDSessionLocation.service)).count
    }


    /// Sends a refresh token the way a thief with a copy would, and returns the status.
    private func replay(_ refreshToken: String) async throws -> Int {
        var request = HTTPClientRequest(url: fixture.backend.tokenEndpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(.init(string: FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "coffer-native")])))
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code)
    }

    /// The browser flow through the login form: the identity from the verified ID token, the
    /// session stored with no password, and a second callback finds the listener closed.
    func testBrowserLoginThroughTheLoginForm() async throws {
        let client = try await client()
        let (callback, result) = try await browserLogin(client)
        let identity = try result.get()
        XCTAssertEqual(identity.preferredUsername, user.name)
        XCTAssertEqual(callback.status, 200)
        XCTAssertEqual(try sessionCount(), 1)
        try assertNoPasswordStored(user.password, in: fixture.vault)
        do {
            _ = try await LoopbackHTTP.get(callback.url)
            XCTFail("a second callback must find nothing listening")
        } catch {}
    }

    /// The device flow approved through the server.
    func testDeviceLoginApprovedThroughTheServer() async throws {
        let client = try await client()
        let login = try await client.startDeviceLogin()
        XCTAssertNotNil(login.authorization.verificationURIComplete)
        XCTAssertTrue(fixture.backend.approveDeviceLogin(userCode: login.authorization.userCode, as: user.name))
        let identity = try await login.complete()
        XCTAssertEqual(identity.preferredUsername, user.name)
        try assertNoPasswordStored(user.password, in: fixture.vault)
    }

    /// Every bad ID token is refused as untrusted, and nothing is stored: expired, another
    /// key's signature, an unknown key id, another audience or issuer, another nonce,
    /// `alg: none`, and HS256 keyed with the public key.
    func testEveryBadIDTokenIsRefusedAndNothingIsStored() async throws {
        let faults: [OpenIDFault] = [
            .idTokenExpired, .idTokenBadSignature, .idTokenUnknownKeyID, .idTokenWrongAudience, .idTokenWrongIssuer,
            .idTokenWrongNonce, .idTokenUnsigned, .idTokenHS256WithPublicKey, .redirectWrongIssuer,
        ]
        for fault in faults {
            fixture.backend.openIDFaults.arm(fault)
            let (_, result) = try await browserLogin(try await client())
            guard case .failure(.untrustedResponse) = result else { return XCTFail("\(fault): \(result)") }
            XCTAssertEqual(try sessionCount(), 0, "\(fault)")
        }
    }

    /// Endpoints given explicitly work with no discovery: the only metadata fetched is the
    /// JWKS, for the ID token.
    func testExplicitEndpointsNeedNoDiscovery() async throws {
        let backend = fixture.backend
        let provider = OpenIDProvider(
            issuer: backend.issuer, authorizationEndpoint: backend.authorizationEndpoint, tokenEndpoint: backend.tokenEndpoint,
            revocationEndpoint: backend.revocationEndpoint, jwksURI: backend.jwksURL)
        let before = backend.statistics.metadataRequests
        let client = OpenIDClient(provider: provider, clientID: "coffer-native", store: fixture.vault, configuration: configuration())
        let identity = try await browserLogin(client).1.get()
        XCTAssertEqual(identity.preferredUsername, user.name)
        XCTAssertEqual(backend.statistics.metadataRequests - before, 1, "the JWKS, and no discovery document")
        let report = try await client.logout()
        XCTAssertTrue(report.revoked)
    }

    /// A refresh whose new ID token fails verification (another user, a bad signature) ends the
    /// session: the provider has already rotated the stored refresh token away, and the reply's
    /// tokens are not trusted. Before, the spent refresh token stayed and the next call sent it
    /// again, which a provider with reuse detection takes for theft.
    func testARefreshWithAnUntrustedIDTokenEndsTheSessionAndReplaysNothing() async throws {
        for fault in [OpenIDFault.idTokenWrongSubject, .idTokenBadSignature] {
            let client = try await client()
            _ = try await browserLogin(client).1.get()
            fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
            fixture.backend.openIDFaults.arm(fault)
            let refreshesBefore = fixture.backend.statistics.refreshRequests
            await XCTAssertThrowsAuthError(matching: { if case .untrustedResponse = $0 { true } else { false } }) {
                try await client.accessToken()
            }
            XCTAssertEqual(try sessionCount(), 0, "\(fault): the session ended")
            await XCTAssertThrowsAuthError(.notAuthenticated) { try await client.accessToken() }
            XCTAssertEqual(fixture.backend.statistics.refreshRequests, refreshesBefore + 1, "\(fault): the spent refresh token was not sent again")
        }
    }

    /// Refresh rotates the refresh token, the rotated one is stored first, and a reused old
    /// one (a copy someone kept) makes the provider end the family: the client then reports
    /// reauthenticationRequired and clears the session.
    func testRefreshRotationAndReuse() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        let events = client.events()
        let first = try XCTUnwrap(try OpenIDSessionLocation(issuer: client.provider.issuer.absoluteString, clientID: "coffer-native", profile: "default")
            .load(from: fixture.vault)?.session.refreshToken)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        _ = try await client.accessToken()
        XCTAssertEqual(fixture.backend.statistics.refreshRequests, 1)
        let replayed = try await replay(first)
        XCTAssertEqual(replayed, 400, "the old refresh token is refused")
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        await XCTAssertThrowsAuthError(.reauthenticationRequired) { try await client.accessToken() }
        XCTAssertEqual(try sessionCount(), 0)
        let reported = await reportedEvents(events, count: 2)
        XCTAssertEqual(reported, [.refreshed, .reauthenticationRequired])
    }

    /// A logout by another client (another process, on the same store) while a refresh is in
    /// flight: the provider has rotated the refresh token, and its reply is on the way. The
    /// logout waits for the refresh to store the rotated session, then removes it and revokes
    /// it: nothing of the login is left stored. (A regression: the logout removed the session at
    /// once, and the refresh wrote it back after, a live refresh token stored after the user
    /// logged out.)
    func testALogoutDuringAnotherClientsRefreshLeavesNoSessionBehind() async throws {
        let refresh = try await refreshWithItsReplyHeldBack().task
        _ = try await client().logout()
        _ = try? await refresh.value
        XCTAssertEqual(try sessionCount(), 0, "the refresh did not write the session back")
        XCTAssertEqual(fixture.backend.statistics.revokedKinds.first, "refresh")
    }

    /// A new login by another client while a refresh of the old one is in flight: the refresh
    /// stores its rotated session first, and the new login is the one kept. (A regression: the
    /// refresh wrote the old login over the new one.)
    func testALoginDuringAnotherClientsRefreshIsNotWrittenOver() async throws {
        let (refresh, refresher) = try await refreshWithItsReplyHeldBack()
        let location = OpenIDSessionLocation(issuer: refresher.provider.issuer.absoluteString, clientID: "coffer-native", profile: "default")
        let other = try await client()
        _ = try await browserLogin(other).1.get()
        _ = try? await refresh.value
        let stored = try XCTUnwrap(try location.load(from: fixture.vault)?.session)
        let newLogin = try await other.accessToken().value
        XCTAssertEqual(stored.accessToken?.value, newLogin, "the new login is the one stored")
    }

    /// A client's refresh of an expired login, once the provider has rotated the refresh token
    /// and holds its reply back for a second; and the client.
    private func refreshWithItsReplyHeldBack() async throws -> (task: Task<AccessToken, any Error>, client: OpenIDClient) {
        let refresher = try await client()
        _ = try await browserLogin(refresher).1.get()
        return (await fixture.refreshWithItsReplyHeldBack { try await refresher.accessToken() }, refresher)
    }

    /// 100 concurrent callers with an expired access token make exactly one refresh request.
    func testConcurrentCallersRefreshOnce() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await client.accessToken().value } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        XCTAssertEqual(tokens.count, 1)
        XCTAssertEqual(fixture.backend.statistics.refreshRequests, 1)
    }

    /// The server down during a refresh: a transient error, and the session stays.
    func testTheServerDownDuringARefreshKeepsTheSession() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        fixture.backend.faults.inject(.status(503), on: .token)
        await XCTAssertThrowsAuthError(.serverError(status: 503)) { try await client.accessToken() }
        XCTAssertEqual(try sessionCount(), 1)
        _ = try await client.accessToken()
    }

    /// A refresh that fails in transport keeps the session: a connection cut before any reply,
    /// a reply that never comes (the request's deadline), and the server gone (connection
    /// refused). Each is transient; the next refresh succeeds with the same stored session.
    /// The login and the next refresh are another client's, on the same store, with the usual
    /// deadline: only the failing refresh needs a short one, which a loaded machine can overrun.
    func testARefreshFailingInTransportKeepsTheSession() async throws {
        let configuration = configuration()
        var short = configuration
        short.requestTimeout = .milliseconds(500)
        let provider = try await provider()
        let client = OpenIDClient(provider: provider, clientID: "coffer-native", store: fixture.vault, configuration: short)
        let patient = OpenIDClient(provider: provider, clientID: "coffer-native", store: fixture.vault, configuration: configuration)
        _ = try await browserLogin(patient).1.get()
        for fault in [Fault.cutConnection(prefix: ""), .hang] {
            fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
            fixture.backend.faults.inject(fault, on: .token)
            await XCTAssertThrowsAuthError(matching: Self.isTransient) { try await client.accessToken() }
            XCTAssertEqual(try sessionCount(), 1, "\(fault) ended the session")
            _ = try await patient.accessToken()
        }
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        await fixture.backend.stop()
        await XCTAssertThrowsAuthError(matching: Self.isTransient) { try await client.accessToken() }
        XCTAssertEqual(try sessionCount(), 1, "the server gone ended the session")
    }

    /// A transport failure or a deadline passed (AsyncHTTPClient retries a refused connection
    /// until the deadline).
    private static func isTransient(_ error: AuthError) -> Bool {
        if case .transport = error { return true }
        return error == .timeout
    }

    /// A refresh refused with a 400 or 401 ends the session whatever the body: empty (as an
    /// OpenID-certified provider answers a session ended at the provider), an HTML page, or an
    /// error code of the provider's own. The app hears `reauthenticationRequired`, the stored
    /// session is gone, and the next call does not send the dead refresh token again.
    func testARefreshRefusedWithoutAnRFC6749ErrorEndsTheSession() async throws {
        let refusals: [Fault] = [
            .reply(status: 400, body: "", contentType: nil),
            .reply(status: 401, body: "", contentType: nil),
            .reply(status: 400, body: "<html><body>Session expired</body></html>", contentType: "text/html"),
            .reply(status: 400, body: #"{"error":"session_not_active"}"#, contentType: "application/json"),
            .reply(status: 400, body: #"{"message":"bad"}"#, contentType: "application/json"),
        ]
        for refusal in refusals {
            let client = try await client()
            _ = try await browserLogin(client).1.get()
            let events = client.events()
            fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
            fixture.backend.faults.inject(refusal, on: .token)
            await XCTAssertThrowsAuthError(.reauthenticationRequired) { try await client.accessToken() }
            XCTAssertEqual(try sessionCount(), 0, "\(refusal): the session is cleared")
            var iterator = events.makeAsyncIterator()
            let event = await iterator.next()
            XCTAssertEqual(event, .reauthenticationRequired, "\(refusal)")
            let refreshes = fixture.backend.statistics.refreshRequests
            await XCTAssertThrowsAuthError(.notAuthenticated) { try await client.accessToken() }
            XCTAssertEqual(fixture.backend.statistics.refreshRequests, refreshes, "\(refusal): nothing is sent again")
        }
    }

    /// A refresh that fails for a reason other than the refresh token keeps the session: a
    /// 5xx (empty or not), and an RFC 6749 error that blames the request (`invalid_request`).
    func testARefreshFailingForAnotherReasonKeepsTheSession() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let transient: [(Fault, AuthError)] = [
            (.reply(status: 502, body: "", contentType: nil), .serverError(status: 502)),
            (.reply(status: 500, body: "<html>oops</html>", contentType: "text/html"), .serverError(status: 500)),
            (.reply(status: 400, body: #"{"error":"invalid_request"}"#, contentType: "application/json"),
             .oauthError(code: "invalid_request", status: 400)),
        ]
        for (fault, error) in transient {
            fixture.backend.faults.inject(fault, on: .token)
            await XCTAssertThrowsAuthError(error) { try await client.accessToken() }
            XCTAssertEqual(try sessionCount(), 1, "\(fault): the session stays")
        }
        _ = try await client.accessToken()
    }

    /// Another local user holding 1,100 idle connections to the login's listener does not keep
    /// the browser out: the real redirect still completes the login (here well within 30 s;
    /// the idle connections give way to it).
    func testIdleConnectionsDoNotHoldTheLoginOff() async throws {
        let client = try await client()
        let login = try await client.startBrowserLogin()
        let port = try XCTUnwrap(URLComponents(string: login.redirectURI)?.port)
        let held = try HeldConnections(count: 1_100, toPort: port)
        let callback = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: login.url, redirectURI: login.redirectURI)
        XCTAssertEqual(callback.status, 200)
        let identity = try await login.complete(timeout: .seconds(30))
        XCTAssertEqual(identity.id.isEmpty, false)
        XCTAssertEqual(held.descriptors.count, 1_100)
    }

    /// `logInWithBrowser` opens the URL with the opener given and completes the login;
    /// `logInWithDevice` hands the codes to `present` and polls until approval.
    func testTheOneCallLogins() async throws {
        let browser = try await client()
        let player = BrowserPlayer(username: user.name, password: user.password)
        let opened = Guarded<Task<BrowserPlayer.Callback, any Error>?>(nil)
        let identity = try await browser.logInWithBrowser(opener: .custom { url in
            let redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value ?? ""
            opened.withLock { $0 = Task { try await player.logIn(at: url, redirectURI: redirect) } }
        }, timeout: .seconds(30))
        XCTAssertEqual(identity.preferredUsername, user.name)
        let playing = try XCTUnwrap(opened.withLock { $0 })
        let callback = try await playing.value
        XCTAssertEqual(callback.status, 200)
        _ = try await browser.logout()

        let device = try await client()
        let backend = fixture.backend
        let deviceIdentity = try await device.logInWithDevice { codes in
            _ = backend.approveDeviceLogin(userCode: codes.userCode, as: AuthFixture.user.name)
        }
        XCTAssertEqual(deviceIdentity.preferredUsername, user.name)
        XCTAssertEqual(try sessionCount(), 1)
    }

    /// Cancelling the task of a device login stops its polling at once with `cancelled`, and
    /// nothing is stored.
    func testCancellingADeviceLoginStopsIt() async throws {
        let waiting = try await client(sleep: { try await Task.sleep(for: $0 * 60) })
        let login = try await waiting.startDeviceLogin()
        let task = Task { try await login.complete() }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled login completed")
        } catch {
            XCTAssertEqual(error as? AuthError, .cancelled)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(try sessionCount(), 0)
        XCTAssertEqual(fixture.backend.statistics.devicePolls, 0, "no poll after the cancel")
    }

    /// A public client's revocation refused with 401 says the provider requires client
    /// authentication for revocation, not that credentials (which it never sent) were rejected.
    func testARefusedPublicRevocationSaysTheProviderRequiresClientAuthentication() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        fixture.backend.faults.inject(.reply(status: 401, body: "", contentType: nil), on: .revocation, times: 2)
        let expected = "the provider requires client authentication for revocation; this client has no secret to send"
        await XCTAssertThrowsAuthError(.logoutIncomplete([
            LogoutFailure(step: .revokeRefreshToken, reason: expected), LogoutFailure(step: .revokeToken, reason: expected),
        ])) { try await client.logout() }
        XCTAssertEqual(try sessionCount(), 0)
    }

    /// `slow_down` adds 5 s to the interval; `expired_token` ends the login; `access_denied` too.
    func testDeviceSlowDownExpiryAndDenial() async throws {
        let script = SleepScript()
        let slow = try await client(sleep: script.sleep)
        fixture.backend.openIDFaults.arm(.deviceSlowDown)
        let login = try await slow.startDeviceLogin()
        script.onSleep { [backend = fixture.backend] count in
            if count == 3 { _ = backend.approveDeviceLogin(userCode: login.authorization.userCode, as: AuthFixture.user.name) }
        }
        _ = try await login.complete()
        XCTAssertEqual(script.durations.map(\.components.seconds), [1, 6, 6], "interval 0 floored at 1 s on loopback")

        fixture.backend.openIDFaults.arm(.deviceExpiredToken)
        await XCTAssertThrowsAuthError(.deviceCodeExpired) { try await (try await self.client()).startDeviceLogin().complete() }

        let denied = try await client()
        let deniedLogin = try await denied.startDeviceLogin()
        XCTAssertTrue(fixture.backend.denyDeviceLogin(userCode: deniedLogin.authorization.userCode))
        await XCTAssertThrowsAuthError(.accessDenied) { try await deniedLogin.complete() }
    }

    /// Logout revokes the refresh token, then the access token, and the refresh token no
    /// longer works at the provider.
    func testLogoutRevokesBothTokens() async throws {
        let client = try await client()
        _ = try await browserLogin(client).1.get()
        let refresh = try XCTUnwrap(try OpenIDSessionLocation(issuer: client.provider.issuer.absoluteString, clientID: "coffer-native", profile: "default")
            .load(from: fixture.vault)?.session.refreshToken)
        let report = try await client.logout()
        XCTAssertTrue(report.revoked)
        XCTAssertEqual(fixture.backend.statistics.revocations, 2)
        XCTAssertEqual(fixture.backend.statistics.revokedKinds, ["refresh", "other"], "the refresh token first, then the access token")
        let replayed = try await replay(refresh)
        XCTAssertEqual(replayed, 400)
        XCTAssertEqual(try sessionCount(), 0)
    }
}
