import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// The agent as the token broker (docs/agent.md, "The token broker"), with a real agent, a
/// real vault and django-oauth-toolkit: `coffer login` hands the session to the agent, `coffer
/// token` asks it, and the refresh token never leaves the agent's process.
final class TokenBrokerTests: BrokerTestCase {
    /// `coffer login` while the agent holds the vault hands the session to the agent, which keeps
    /// it in the vault (the refresh token is there, owned by the program that logged in);
    /// `coffer token` prints a token the provider accepts, and `--json` its expiry, profile and
    /// scope. The refresh token appears in no command's output: not login's, not token's, not
    /// `coffer get`'s (refused, exit 13, for the session and for the profile's settings) nor
    /// `coffer list`'s (which does not list them), nor the audit log's.
    func testLoginHandsTheSessionToTheAgentAndTokenAsksIt() async throws {
        try startAgentHoldingTheVault()
        let loggedIn = try await login()
        XCTAssertEqual(loggedIn.stdoutText, "logged in as coffer (\(server.issuer.absoluteString))\n")
        let refreshToken = try refreshToken()

        let token = try coffer(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        let accessToken = token.stdoutText.trimmingCharacters(in: .newlines)
        let userinfo = try await server.userinfo(accessToken: accessToken)
        XCTAssertEqual(userinfo.status, 200, "the provider takes the token")
        // The thin `coffer` answers it: none of Foundation, glib, gio, libsecret or libgcrypt loads.
        let traced = try coffer(["token"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(traced.stdoutText, token.stdoutText, LoadedLibraries.stderrWithoutTracing(traced))
        XCTAssertEqual(LoadedLibraries.heavy(in: traced), [])

        let json = try coffer(["token", "--json"])
        XCTAssertEqual(json.status, 0, json.stderrText)
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(fields["token"] as? String, accessToken, "the same token: the agent did not refresh a valid one")
        XCTAssertEqual(fields["profile"] as? String, "default")
        XCTAssertTrue((fields["scope"] as? String)?.contains("openid") == true, "\(fields)")
        XCTAssertNotNil((fields["expiresAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(fields)")

        let exec = try coffer(["token", "--exec-credential"])
        XCTAssertEqual(exec.status, 0, exec.stderrText)
        let credential = try XCTUnwrap(try JSONSerialization.jsonObject(with: exec.stdout) as? [String: Any])
        XCTAssertEqual(credential["apiVersion"] as? String, "client.authentication.k8s.io/v1")
        XCTAssertEqual(credential["kind"] as? String, "ExecCredential")
        let status = try XCTUnwrap(credential["status"] as? [String: Any])
        XCTAssertEqual(status["token"] as? String, accessToken)
        XCTAssertNotNil((status["expirationTimestamp"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(status)")

        let opened = try openVault()
        let sessionItem = try XCTUnwrap(try opened.items(matching: ItemQuery(service: "coffer.openid")).first { $0.id.account.hasPrefix("default ") })
        let owner = try XCTUnwrap(try opened.access(for: sessionItem.id)?.owner)
        XCTAssertEqual(String(decoding: owner.executablePath, as: UTF8.self), BuiltProducts.executable("coffer-auth").resolvingSymlinksInPath().path)
        opened.lock()

        for account in [sessionItem.id.account, "default"] {
            let get = try coffer(["get", "coffer.openid", account])
            XCTAssertEqual(get.status, 13, "an item of a brokered login is refused to `coffer get`: \(get.stderrText)")
            XCTAssertFalse(get.stdout.contains(refreshToken) || get.stderr.contains(refreshToken))
        }
        let list = try coffer(["list"])
        XCTAssertEqual(list.status, 0, list.stderrText)
        XCTAssertFalse(list.stdoutText.contains("coffer.openid"), "not listed: \(list.stdoutText)")
        let listJSON = try coffer(["list", "--json"])
        XCTAssertFalse(listJSON.stdoutText.contains("coffer.openid"), listJSON.stdoutText)
        for output in [loggedIn, token, json, exec, list, listJSON] {
            XCTAssertFalse(output.stdout.contains(refreshToken) || output.stderr.contains(refreshToken), "no output shows the refresh token")
        }
        let log = try coffer(["access", "log", "--json"])
        XCTAssertEqual(log.status, 0, log.stderrText)
        XCTAssertFalse(log.stdout.contains(refreshToken) || log.stdout.contains(accessToken), "the log shows no token")
        let audit = try auditBytes()
        XCTAssertFalse(audit.contains(refreshToken) || audit.contains(accessToken), "the audit entries hold no token")
        XCTAssertEqual(try self.refreshToken(), refreshToken, "a valid access token was handed out without a refresh")
    }

    /// The agent's replies to token requests, as bytes on the socket, carry the access token and
    /// never the refresh token; item requests through the agent (another program's, the test
    /// helper's) on the session's items are refused (exit 13), and a listing leaves them out.
    func testTheAgentsRepliesNeverCarryTheRefreshToken() async throws {
        try startAgentHoldingTheVault(policy: .open)
        try await login()
        let refreshToken = try refreshToken()
        for reply in try tokenReplies(3) {
            XCTAssertTrue(reply.frame.contains(String(reply.line.dropFirst("token ".count))), "the frame carries the access token")
            XCTAssertFalse(reply.frame.contains(refreshToken), "no reply frame carries the refresh token")
        }

        let sessionAccount = try XCTUnwrap(try openVault().items(matching: ItemQuery(service: "coffer.openid")).first { $0.id.account.hasPrefix("default ") }?.id.account)
        for account in [sessionAccount, "default"] {
            let read = try ChildProcess.run(helper, ["agent-get", agentSocket.path, realVault, "coffer.openid", account])
            XCTAssertEqual(read.status, 13, "refused even under the open policy: \(read.stderrText)")
            XCTAssertFalse(read.stdout.contains(refreshToken))
            let overwrite = try ChildProcess.run(helper, ["agent-set", agentSocket.path, realVault, "coffer.openid", account], stdin: Data("x".utf8))
            XCTAssertEqual(overwrite.status, 13, overwrite.stderrText)
            let removed = try ChildProcess.run(helper, ["agent-delete", agentSocket.path, realVault, "coffer.openid", account])
            XCTAssertEqual(removed.status, 13, removed.stderrText)
        }
        let removedAll = try ChildProcess.run(helper, ["agent-delete-all", agentSocket.path, realVault, "coffer.openid"])
        XCTAssertEqual(removedAll.stdoutText, "0\n", "a removal by query spares a brokered login: \(removedAll.stderrText)")
        let listed = try ChildProcess.run(helper, ["agent-list", agentSocket.path, realVault])
        XCTAssertEqual(listed.status, 0, listed.stderrText)
        let accounts = listed.stdoutText.split(separator: "\n")
        XCTAssertEqual(accounts, ["openid default"], "only coffer login's own settings (no token in them); the login's items are not listed")
        XCTAssertEqual(try self.refreshToken(), refreshToken, "the session is untouched")
        let token = try coffer(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
    }

    /// With an expired access token, 50 token requests from 10 processes at once (the test
    /// helper's, 5 concurrent connections each) and 5 `coffer token` processes beside them make
    /// exactly one refresh request at the provider, which rotates refresh tokens and revokes a
    /// family on replay: none is refused, and every caller gets the same new token, which the
    /// provider takes. The agent stored the rotated refresh token.
    func testManyCallersWithAnExpiredTokenMakeOneRefresh() async throws {
        try startAgentHoldingTheVault(policy: .open)
        try await login()
        let before = try refreshToken()
        let first = try coffer(["token"]).stdoutText.trimmingCharacters(in: .newlines)
        let counted = try await server.refreshCount()
        usleep(Self.expiry)

        let tokens = try tokensAtOnce(helpers: 10, commands: 5, profile: "default", tokenArguments: ["token"])
        XCTAssertEqual(tokens.count, 55)
        XCTAssertEqual(Set(tokens).count, 1, "every caller got the same token")
        XCTAssertTrue(tokens[0] != first, "a new token")
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 1, "one refresh request for every caller")
        XCTAssertEqual(after.refused, counted.refused, "none refused")
        let userinfo = try await server.userinfo(accessToken: tokens[0])
        XCTAssertEqual(userinfo.status, 200)
        XCTAssertTrue(try refreshToken() != before, "the rotated refresh token is stored")
    }

    /// A refused token makes the agent refresh, but not again within 10 s: a program (a sandbox
    /// through a share, say) that refuses every token it gets makes one refresh, and its next
    /// refusal is a transient failure ("ask again later") with no request to the provider and no
    /// token. A refusal naming a token that is not the current one gets the current one, and
    /// does not count (one before the first refusal leaves it its refresh). Before,
    /// each refusal was one more refresh and rotation at the provider (found by review on 2026-11-29).
    func testRefusalsMakeAtMostOneRefreshInTenSeconds() async throws {
        try startAgentHoldingTheVault(policy: .open)
        try await login()
        let first = try coffer(["token"]).stdoutText.trimmingCharacters(in: .newlines)
        let counted = try await server.refreshCount()
        let unknown = try helperTokens(refusing: "not a token of this login")
        XCTAssertEqual(Self.replies(unknown).first?.line, "token \(first)", "a refusal of another token changes nothing")

        let renewed = try helperTokens(refusing: first)
        XCTAssertEqual(renewed.status, 0, renewed.stdoutText)
        let second = try XCTUnwrap(Self.replies(renewed).first?.line.split(separator: " ").last.map(String.init))
        XCTAssertNotEqual(second, first)
        let again = try helperTokens(refusing: second)
        XCTAssertEqual(again.status, 1, again.stdoutText)
        XCTAssertTrue(again.stdoutText.hasPrefix("failure ") && again.stdoutText.contains("ask again later"), again.stdoutText)
        XCTAssertFalse(again.stdoutText.contains(second), "the refused token is not handed out again")
        let stale = try helperTokens(refusing: first)
        XCTAssertEqual(Self.replies(stale).first?.line, "token \(second)", "a stale refusal gets the current token")
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 1, "one refresh for three refusals")
    }

    private func helperTokens(refusing token: String) throws -> ChildProcess.Output {
        try ChildProcess.run(helper, ["agent-tokens", agentSocket.path, realVault, "default", "1", token])
    }

    /// `coffer status` asks the agent (exit 0, authorized, no refresh token held by the command,
    /// no token shown); `coffer logout` has the agent revoke the refresh token at the provider
    /// and remove the login: the provider then refuses that refresh token, the vault holds no
    /// item of the login, and `coffer token` is exit 4.
    func testStatusAndLogoutGoThroughTheAgent() async throws {
        try startAgentHoldingTheVault()
        try await login()
        let refreshToken = try refreshToken()
        let status = try coffer(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText)
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        XCTAssertEqual(fields["isAuthorized"] as? Bool, true, "\(fields)")
        XCTAssertEqual(fields["refreshTokenHeld"] as? Bool, false, "the command holds none: \(fields)")
        XCTAssertFalse(status.stdout.contains(refreshToken))

        let logout = try coffer(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertEqual(logout.stdoutText, "logged out of profile default; tokens revoked\n")
        let replay = try await server.refresh(refreshToken, clientID: server.clients.native)
        XCTAssertEqual(replay.jsonString("error"), "invalid_grant", "revoked at the provider")
        XCTAssertEqual(try openVault().items(matching: ItemQuery(service: "coffer.openid")), [], "the login is gone from the vault")
        let token = try coffer(["token"])
        XCTAssertEqual(token.exitStatus, .loginNeeded, token.stderrText)
    }
}
