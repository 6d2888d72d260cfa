import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// `kill -9` of the agent loses no brokered login (docs/agent.md, "The token broker"): the
/// agent stores a rotated refresh token durably before it answers anyone, and a refresh the
/// agent did not live to store is one the provider's grace period covers.
final class TokenBrokerCrashTests: BrokerTestCase {
    private func killAndRestartTheAgent() throws {
        agent?.kill(SIGKILL)
        _ = try agent?.wait(timeout: .seconds(10))
        try startAgent()
        let unlocked = try coffer(["unlock", "--for", "10m"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
    }

    /// A refresh whose token the agent handed out, then `kill -9`: the restarted agent refreshes
    /// with the rotated refresh token it had stored before answering. Had it answered first and
    /// lost the rotation, it would replay the spent token, which this provider (no grace
    /// period, reuse protection on) refuses and answers by revoking the whole family.
    func testARotationHandedOutSurvivesKill9() async throws {
        try startAgentHoldingTheVault()
        try await login()
        usleep(Self.expiry)
        let counted = try await server.refreshCount()
        let refreshed = try coffer(["token"])
        XCTAssertEqual(refreshed.status, 0, refreshed.stderrText)

        try killAndRestartTheAgent()
        usleep(Self.expiry)
        let again = try coffer(["token"])
        XCTAssertEqual(again.status, 0, again.stderrText)
        XCTAssertTrue(again.stdoutText != refreshed.stdoutText, "a new token")
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 2)
        XCTAssertEqual(after.refused, counted.refused, "the provider refused no refresh")
        let userinfo = try await server.userinfo(accessToken: again.stdoutText.trimmingCharacters(in: .newlines))
        XCTAssertEqual(userinfo.status, 200)
    }

    /// `kill -9` while the provider holds the agent's refresh request (the provider rotates
    /// after the agent died): the vault still holds the refresh token the agent sent, and the
    /// restarted agent refreshes with it within the provider's grace period (django-oauth-toolkit's
    /// REFRESH_TOKEN_GRACE_PERIOD_SECONDS, as Okta's and Auth0's rotation have), which answers
    /// with the rotation the dead agent missed. The session goes on: a later refresh works too.
    func testKill9MidRefreshLosesNoSession() async throws {
        let delay = 2 * TestTiming.scale
        server = try provider(["--refresh-grace", "60", "--refresh-delay", "\(delay)"])
        try startAgentHoldingTheVault()
        try await login()
        let stored = try refreshToken()
        usleep(Self.expiry)
        let counted = try await server.refreshCount()
        let waiting = try ChildProcess.start(BuiltProducts.executable("coffer").path, ["token"], environment: baseEnvironment)
        let held = try await refreshArrives(after: counted, within: delay)
        XCTAssertTrue(held, "the refresh reached the provider")
        try killAndRestartTheAgent()
        let orphaned = try waiting.wait(timeout: .seconds(30))
        XCTAssertNotEqual(orphaned.status, 0, "the command whose agent died gets no token")
        XCTAssertEqual(try refreshToken(), stored, "the agent died before it could store a rotation")
        usleep(useconds_t(delay) * 1_000_000)  // the provider has rotated by now

        let recovered = try coffer(["token"])
        XCTAssertEqual(recovered.status, 0, recovered.stderrText)
        XCTAssertTrue(try refreshToken() != stored, "the rotation is stored")
        usleep(Self.expiry)
        let later = try coffer(["token"])
        XCTAssertEqual(later.status, 0, later.stderrText)
        let after = try await server.refreshCount()
        XCTAssertEqual(after.refused, counted.refused, "the provider refused no refresh")
        let userinfo = try await server.userinfo(accessToken: later.stdoutText.trimmingCharacters(in: .newlines))
        XCTAssertEqual(userinfo.status, 200)
    }
}
