import Coffer
@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// The one client surface: `OpenIDClient`, `Authorization` (OMC) and `ChallengeClient`
/// (MobileFirst, MCA), each logged in with its SDK's own call, then driven only through
/// `any AuthorizationClient`, all storing in `any CredentialStore` (a vault).
final class AuthorizationClientTests: AuthTestCase {
    let locks = TemporaryFolder()

    override func setUp() async throws {
        fixture = try await AuthFixture.start { configuration in
            configuration.openID.deviceInterval = 0
            configuration.openID.idTokenLifetime = 86_400
        }
    }

    /// Through the protocol alone, each client names its user, gives an access token, sends a
    /// request that the resource accepts, and logs out: its stored session removed, the server
    /// told, no user left, and the logout reported as an event.
    func testEveryClientServesTheSameSurfaceThroughTheProtocol() async throws {
        let omc = fixture.authorization()
        try await fixture.logIn(omc)
        try await exercise(omc, resource: ResourceRequest(url: fixture.backend.protectedURL), "OMC")

        let (mobileFirst, _) = challengeClient(answering: "UserLogin", ["username": "john", "password": "john"])
        _ = try await mobileFirst.authorizationManager.obtainAccessToken(scope: "UserLogin")
        try await exercise(mobileFirst, resource: ResourceRequest(url: fixture.backend.mobileFirstURL("protected")), "MobileFirst")

        let clock = fixture.clock
        let configuration = OpenIDClient.Configuration(
            requestTimeout: .seconds(10), loginTimeout: .seconds(30), lockFolder: locks.url, now: { clock.now }, sleep: { _ in }, logger: quietLogger)
        let provider = try await OpenIDProvider.discover(issuer: fixture.backend.issuer, configuration: configuration)
        let openID = OpenIDClient(provider: provider, clientID: "coffer-native", store: fixture.vault, configuration: configuration)
        let backend = fixture.backend
        _ = try await openID.logInWithDevice { codes in _ = backend.approveDeviceLogin(userCode: codes.userCode, as: AuthFixture.user.name) }
        try await exercise(openID, resource: ResourceRequest(url: fixture.backend.issuer.appendingPathComponent("userinfo")), "OpenID")
    }

    /// A MobileFirst challenge client whose handler for `check` answers `answer`.
    private func challengeClient(answering check: String, _ answer: JSONValue) -> (ChallengeClient, TestChallengeHandler) {
        let client = fixture.challengeClient()
        let handler = TestChallengeHandler(securityCheck: check, .answers([answer, answer, answer]))
        client.registerChallengeHandler(handler)
        return (client, handler)
    }

    private func exercise(_ client: any AuthorizationClient, resource: ResourceRequest, _ name: String) async throws {
        let user = try await client.user
        XCTAssertNotNil(user, "\(name): no user after the login")
        let events = client.events()
        let token = try await client.accessToken()
        XCTAssertFalse(token.value.isEmpty, name)
        let reply = try await client.send(resource)
        XCTAssertEqual(reply.status, 200, "\(name): the resource refused the client's request")

        let report = try await client.logout()
        XCTAssertTrue(report.removedStoredSession, "\(name): the logout found no stored session")
        XCTAssertTrue(report.revoked || report.loggedOutAtBackend, "\(name): the server was not told")
        let nobody = try await client.user
        XCTAssertNil(nobody, "\(name): a user after the logout")
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        XCTAssertEqual(event, .loggedOut, "\(name): the logout was not reported")
    }
}
