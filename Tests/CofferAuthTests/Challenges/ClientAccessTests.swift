@testable import CofferAuth
import CofferDevBackend
import CofferTestSupport
import XCTest

/// IBM Mobile Client Access: a custom realm's challenge answered through an `AuthenticationDelegate`, end to end over loopback.
final class ClientAccessTests: ChallengeTestCase {
    static let realm = ClientAccessConfiguration.defaultRealm
    static let demo: JSONValue = ["username": "demo", "password": "demo-password"]

    private func client() -> ChallengeClient { fixture.challengeClient(fixture.backend.clientAccessServer) }
    private var protected: ResourceRequest { ResourceRequest(url: fixture.backend.clientAccessProtectedURL) }

    /// The realm's challenge goes to its delegate; the right answer opens /mca/protected, reports success and sets userIdentity.
    func testAnsweredChallengeSetsUserIdentity() async throws {
        let client = client()
        let delegate = TestAuthenticationDelegate(answers: [Self.demo])
        client.registerAuthenticationDelegate(delegate, forRealm: Self.realm)

        let reply = try await protected.send(using: client)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(JSONValue(parsing: reply.body)?["user"]?.stringValue, "demo")
        XCTAssertEqual(delegate.challenges.count, 1)
        XCTAssertNotNil(delegate.challenges.first?["text"]?.stringValue)
        let identity = await client.authorizationManager.userIdentity
        XCTAssertEqual(identity, AuthenticatedUser(id: "demo", name: "demo", authenticatedBy: Self.realm))
        await eventually("didReceiveAuthenticationSuccess was called") { delegate.successes.count == 1 }
        XCTAssertEqual(delegate.successes.first?["userIdentity"]?["id"]?.stringValue, "demo")

        let status1 = try await protected.send(using: client).status

        XCTAssertEqual(status1, 200)
        XCTAssertEqual(delegate.challenges.count, 1, "the stored token serves the next request")
    }

    /// A wrong answer: didReceiveAuthenticationFailure is called, the request fails with challengeFailed, and no userIdentity is set.
    func testWrongAnswerFailsAndReportsTheFailure() async throws {
        let client = client()
        let delegate = TestAuthenticationDelegate(answers: [["username": "demo", "password": "wrong"]])
        client.registerAuthenticationDelegate(delegate, forRealm: Self.realm)

        await XCTAssertThrowsAuthError(.challengeFailed(check: Self.realm, payload: ["reason": "wrong user name or password"])) {
            try await self.protected.send(using: client)
        }
        await eventually("didReceiveAuthenticationFailure was called") { delegate.failures.count == 1 }
        let identity = await client.authorizationManager.userIdentity
        XCTAssertNil(identity)
    }

    /// submitAuthenticationFailure fails every waiting request with challengeFailed carrying the delegate's userInfo.
    func testSubmitAuthenticationFailureFailsTheRequest() async throws {
        let client = client()
        let delegate = TestAuthenticationDelegate(answers: [], failureInfo: ["reason": "the user cancelled"])
        client.registerAuthenticationDelegate(delegate, forRealm: Self.realm)
        await XCTAssertThrowsAuthError(.challengeFailed(check: Self.realm, payload: ["reason": "the user cancelled"])) {
            try await self.protected.send(using: client)
        }
        XCTAssertFalse(client.authorizationManager.isChallenged(securityCheck: Self.realm))
    }

    /// logout of the realm forgets its token and user: the next request is challenged again.
    func testLogoutChallengesAgain() async throws {
        let client = client()
        let delegate = TestAuthenticationDelegate(answers: [Self.demo, Self.demo])
        client.registerAuthenticationDelegate(delegate, forRealm: Self.realm)
        let status2 = try await protected.send(using: client).status
        XCTAssertEqual(status2, 200)
        try await client.authorizationManager.logout(securityCheck: Self.realm)
        let identity = await client.authorizationManager.userIdentity
        XCTAssertNil(identity)
        let status3 = try await protected.send(using: client).status
        XCTAssertEqual(status3, 200)
        XCTAssertEqual(delegate.challenges.count, 2)
    }
}
