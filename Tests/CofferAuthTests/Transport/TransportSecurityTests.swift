import Coffer
import CofferTestSupport
@testable import CofferAuth
import CofferDevBackend
import Foundation
import XCTest

/// Credentials and tokens travel over HTTPS, or plain HTTP to loopback only, unless the app
/// opts in: before, `http://<remote host>` got `Authorization: Basic` in clear.
final class TransportSecurityTests: AuthTestCase {
    /// An address in TEST-NET-1 (RFC 5737): the refusal happens before any connection, so
    /// nothing is ever sent there.
    let remote = URL(string: "http://192.0.2.1:8080")!

    /// The loopback hosts, and what does not count as one.
    func testLoopbackHosts() {
        for host in ["127.0.0.1", "127.255.0.9", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] {
            XCTAssertTrue(TransportSecurity.isLoopback(host: host), host)
        }
        for host in ["0.0.0.0", "128.0.0.1", "192.0.2.1", "example.com", "localhost.example.com", "127.0.0.1.example.com", "::2", "", "127.1"] {
            XCTAssertFalse(TransportSecurity.isLoopback(host: host), host)
        }
    }

    /// Every URL shape: https anywhere, http to loopback, and nothing else.
    func testOnlyHTTPSOrLoopbackPasses() throws {
        let logger = quietLogger
        for allowed in ["https://example.com/x", "http://127.0.0.1:1/x", "http://localhost/x", "http://[::1]:8/x"] {
            XCTAssertNoThrow(try TransportSecurity.check(URL(string: allowed)!, allowInsecureHTTP: false, logger: logger), allowed)
        }
        for refused in ["http://example.com/x", "http://0.0.0.0:1/", "ftp://localhost/x", "file:///etc/passwd"] {
            XCTAssertThrowsError(try TransportSecurity.check(URL(string: refused)!, allowInsecureHTTP: false, logger: logger), refused) { error in
                guard case .invalidRequest = error as? AuthError else { return XCTFail("\(error)") }
            }
        }
    }

    /// Logging in, exchanging an SSO token and logging out against an http:// backend that is
    /// not loopback are refused with invalidRequest at once (well under the 5 s connect
    /// timeout: no connection is tried), whichever URL is remote.
    func testEveryEndpointOnPlainHTTPToARemoteHostIsRefused() async throws {
        let backends = [
            MobileBackend(baseURL: remote, backendID: "b", authentication: .httpBasic),
            MobileBackend(baseURL: URL(string: "https://backend.example")!, backendID: "b",
                          authentication: .oauth(tokenEndpoint: remote.appendingPathComponent("token"), clientID: "c", clientSecret: "s")),
        ]
        for backend in backends {
            let auth = fixture.authorization(backend)
            let started = ContinuousClock.now
            await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
                try await auth.authenticate(userName: "u", password: "p")
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
        }
        let exchange = fixture.authorization(MobileBackend(baseURL: remote, backendID: "b", authentication: .httpBasic))
        await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
            try await exchange.authenticateSSOTokenExchange("third-party", storeAccessToken: true)
        }
    }

    /// A revocation endpoint on plain HTTP to a remote host is refused too; logout still
    /// clears everything locally first and names the failed step.
    func testRevocationToARemoteHostIsRefusedAfterTheLocalLogout() async throws {
        let local = fixture.backend.mobileBackend()
        let backend = MobileBackend(
            baseURL: local.baseURL, backendID: local.backendID, authentication: local.authentication,
            revocationEndpoint: remote.appendingPathComponent("revoke"))
        let auth = fixture.authorization(backend)
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        await XCTAssertThrowsAuthError(matching: { error in
            guard case .logoutIncomplete(let failures) = error else { return false }
            return failures.map(\.step) == [.revokeRefreshToken, .revokeToken]
                && failures.allSatisfy { $0.reason.contains("refusing plain HTTP to 192.0.2.1") }
        }) { try await auth.logout() }
        XCTAssertNil(try fixture.storedSession())
    }

    /// A challenge client of a MobileFirst server on plain HTTP to a remote host refuses
    /// before registering.
    func testChallengeClientsRefusePlainHTTPToARemoteHost() async throws {
        let client = ChallengeClient(server: .mobileFirst(remote), store: fixture.vault, configuration: ChallengeClient.Configuration(logger: quietLogger))
        await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
            try await ResourceRequest(url: self.remote.appendingPathComponent("mfp/balance")).send(using: client)
        }
    }

    /// OpenID logins: discovery of a plain-HTTP remote issuer, and a provider whose endpoints
    /// are plain HTTP to a remote host, are refused before any connection.
    func testOpenIDRefusesPlainHTTPToARemoteHost() async throws {
        let isInvalidRequest: (AuthError) -> Bool = { if case .invalidRequest = $0 { true } else { false } }
        await XCTAssertThrowsAuthError(matching: isInvalidRequest) {
            try await OpenIDProvider.discover(issuer: self.remote, configuration: OpenIDClient.Configuration(logger: quietLogger))
        }
        let provider = OpenIDProvider(
            issuer: URL(string: "https://id.example")!, tokenEndpoint: remote.appendingPathComponent("token"),
            deviceAuthorizationEndpoint: remote.appendingPathComponent("device"))
        let client = OpenIDClient(provider: provider, clientID: "c", store: fixture.vault, configuration: OpenIDClient.Configuration(logger: quietLogger))
        let started = ContinuousClock.now
        await XCTAssertThrowsAuthError(matching: isInvalidRequest) { try await client.startDeviceLogin() }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
    }

    /// With the opt-in, plain HTTP to a host that is not loopback goes through, and every
    /// request logs a warning. (0.0.0.0 is not loopback by the rule, yet on Linux connecting
    /// to it reaches this machine, so the test stays local.)
    func testOptInAllowsPlainHTTPAndWarnsEachTime() async throws {
        let local = fixture.backend.mobileBackend()
        let port = try XCTUnwrap(local.baseURL.port)
        let base = URL(string: "http://0.0.0.0:\(port)")!
        let backend = MobileBackend(
            baseURL: base, backendID: local.backendID,
            authentication: .oauth(tokenEndpoint: base.appendingPathComponent("oauth2/v1/token"), clientID: DevBackend.Configuration.defaultClient.id,
                                   clientSecret: DevBackend.Configuration.defaultClient.secret))
        await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
            try await self.fixture.authorization(backend).authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        }
        let capture = LogCapture()
        let auth = fixture.authorization(backend) { configuration in
            configuration.allowInsecureHTTP = true
            configuration.logger = capture.logger(level: .warning)
        }
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let reply = try await auth.get(base.appendingPathComponent("protected"))
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(capture.text.components(separatedBy: "sending credentials over plain HTTP").count - 1, 2, capture.text)
        XCTAssertFalse(capture.text.contains(AuthFixture.user.password))
    }
}
