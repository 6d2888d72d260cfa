@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// OpenID Connect discovery against django-oauth-toolkit: its stock document (which lacks the
/// device and revocation endpoints), and one that names them (`--augment-discovery`).
final class DOTDiscoveryTests: XCTestCase {
    /// DOT's stock discovery: the issuer exactly as the server names it, the endpoints it
    /// publishes, RFC 9207 support, and no device or revocation endpoint.
    func testStockDiscoveryNamesTheIssuerExactly() async throws {
        let server = try OIDCTestServer.shared(.interop)
        let provider = try await DOTFixture(server: server).discover()

        XCTAssertEqual(provider.issuer.absoluteString, server.issuer.absoluteString)
        XCTAssertEqual(provider.authorizationEndpoint, server.authorizationEndpoint)
        XCTAssertEqual(provider.tokenEndpoint, server.tokenEndpoint)
        XCTAssertEqual(provider.jwksURI, server.jwksURI)
        XCTAssertEqual(provider.userinfoEndpoint, server.userinfoEndpoint)
        XCTAssertTrue(provider.idTokenSigningAlgorithms.contains("RS256"))
        XCTAssertTrue(provider.issuerInAuthorizationResponse)
        XCTAssertNil(provider.deviceAuthorizationEndpoint, "stock DOT discovery names no device endpoint")
        XCTAssertNil(provider.revocationEndpoint, "stock DOT discovery names no revocation endpoint")
    }

    /// The issuer must be named exactly: with a trailing slash, or as `localhost`, DOT's document
    /// names another issuer and discovery refuses it.
    func testAnotherSpellingOfTheIssuerIsRefused() async throws {
        let server = try OIDCTestServer.shared(.interop)
        let fixture = try DOTFixture(server: server)
        let slash = try XCTUnwrap(URL(string: server.issuer.absoluteString + "/"))
        await XCTAssertThrowsAuthError(matching: { if case .untrustedResponse = $0 { true } else { false } }) {
            try await OpenIDProvider.discover(issuer: slash, configuration: fixture.configuration())
        }
        let localhost = try XCTUnwrap(URL(string: server.issuer.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")))
        await XCTAssertThrowsAuthError(matching: { if case .untrustedResponse = $0 { true } else { false } }) {
            try await OpenIDProvider.discover(issuer: localhost, configuration: fixture.configuration())
        }
    }

    /// With the endpoints in the document (`--augment-discovery`), discovery alone is enough for
    /// a device login and for revocation at logout.
    func testAugmentedDiscoveryFindsTheDeviceAndRevocationEndpoints() async throws {
        let server = try OIDCTestServer.shared(OIDCTestServer.Options(augmentDiscovery: true, deviceInterval: 1))
        let fixture = try DOTFixture(server: server)
        let provider = try await fixture.discover()
        XCTAssertEqual(provider.issuer.absoluteString, server.issuer.absoluteString)
        XCTAssertEqual(provider.deviceAuthorizationEndpoint, server.deviceAuthorizationEndpoint)
        XCTAssertEqual(provider.revocationEndpoint, server.revocationEndpoint)

        let script = SleepScript()
        let client = fixture.client(provider, clientID: server.clients.device, sleep: script.sleep)
        let login = try await client.startDeviceLogin()
        try await server.answerDeviceLogin(userCode: login.authorization.userCode, verificationURIComplete: login.authorization.verificationURIComplete)
        let identity = try await login.complete()
        XCTAssertEqual(identity.preferredUsername, server.username)
        XCTAssertEqual(try fixture.assertNoPasswordStored(), 1)

        let refreshToken = try XCTUnwrap(try fixture.storedSession(client)?.refreshToken)
        let report = try await client.logout()
        XCTAssertTrue(report.revoked)
        let replay = try await server.refresh(refreshToken, clientID: server.clients.device)
        XCTAssertEqual(replay.status, 400)
        XCTAssertEqual(replay.jsonString("error"), "invalid_grant")
    }
}
