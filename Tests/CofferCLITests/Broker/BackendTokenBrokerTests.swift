import Coffer
import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// The agent as the token broker of a mobile backend's OAuth login (docs/agent.md, "The token
/// broker"), with a real agent, a real vault and the dev backend on 127.0.0.1 (password and
/// refresh_token grants, refresh tokens rotated): `coffer login --backend-url … --oauth-token-url …`
/// hands the session to the agent, `coffer token` asks it, and the refresh token never leaves
/// the agent's process.
final class BackendTokenBrokerTests: BrokerTestCase {
    var backend: DevBackend!
    let user = DevBackend.Configuration.defaultUser
    let client = DevBackend.Configuration.defaultClient

    override func tearDown() async throws {
        await backend?.stop()
        try await super.tearDown()
    }

    private func startBackend(tokenLifetime: TimeInterval = 3600) async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(tokenLifetime: tokenLifetime, logger: quietLogger))
    }

    private var url: String { backend.baseURL.absoluteString }

    /// `coffer login` with the OAuth password grant, as profile `hub`.
    @discardableResult
    private func backendLogin() throws -> ChildProcess.Output {
        let output = try coffer(
            ["login", "--backend-url", url, "--backend-id", "coffer-dev", "--user", user.name, "--oauth-token-url", url + "/oauth2/v1/token",
             "--client-id", client.id, "--client-secret-fd", "3", "--revocation-url", url + "/oauth2/v1/revoke", "--profile", "hub"],
            stdin: Data((user.password + "\n").utf8), inputs: [3: Data(client.secret.utf8)])
        XCTAssertEqual(output.status, 0, output.stderrText)
        return output
    }

    /// The backend session the vault holds for profile `hub`, read directly.
    private func backendRefreshToken() throws -> String {
        let opened = try openVault()
        defer { opened.lock() }
        let data = try XCTUnwrap(try opened.secret(for: .genericPassword(service: "coffer.openid", account: "hub mobile-backend")))
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(session["refreshToken"] as? String, "the vault holds the session's refresh token")
    }

    /// `coffer login` while the agent holds the vault hands the OAuth session to the agent: the
    /// vault holds it under the agent's reserved service (and no `coffer.auth` session), `coffer
    /// get` of its items is refused (exit 13), `coffer token --profile hub` prints a token the
    /// backend accepts, and no output, nor the audit log, shows the refresh token.
    func testLoginHandsTheBackendSessionToTheAgentAndTokenAsksIt() async throws {
        try await startBackend()
        try startAgentHoldingTheVault()
        let loggedIn = try backendLogin()
        XCTAssertTrue(loggedIn.stdoutText.hasPrefix("logged in as \(user.name)"), loggedIn.stdoutText)
        let refreshToken = try backendRefreshToken()
        let opened = try openVault()
        XCTAssertNil(try opened.secret(for: .genericPassword(service: "coffer.auth", account: "session")), "the CLI keeps no session of its own")
        opened.lock()

        let token = try coffer(["token", "--profile", "hub"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        let accessToken = token.stdoutText.trimmingCharacters(in: .newlines)
        XCTAssertFalse(accessToken.isEmpty)
        let request = try coffer(["request", "/protected"])
        XCTAssertEqual(request.status, 0, "the backend takes the agent's token: \(request.stderrText)")
        XCTAssertEqual(backend.statistics.refreshRequests, 0, "a valid token was handed out without a refresh")

        for account in ["hub mobile-backend", "hub"] {
            let get = try coffer(["get", "coffer.openid", account])
            XCTAssertEqual(get.status, 13, "an item of a brokered login is refused to `coffer get`: \(get.stderrText)")
            XCTAssertFalse(get.stdout.contains(refreshToken) || get.stderr.contains(refreshToken))
        }
        let list = try coffer(["list"])
        XCTAssertFalse(list.stdoutText.contains("coffer.openid"), list.stdoutText)
        for output in [loggedIn, token, request, list] {
            XCTAssertFalse(output.stdout.contains(refreshToken) || output.stderr.contains(refreshToken), "no output shows the refresh token")
        }
        let audit = try auditBytes()
        XCTAssertFalse(audit.contains(refreshToken) || audit.contains(accessToken), "the audit entries hold no token")
    }

    /// The agent's replies to token requests for the backend login, as bytes on the socket,
    /// carry the access token and never the refresh token.
    func testTheAgentsRepliesNeverCarryTheBackendRefreshToken() async throws {
        try await startBackend()
        try startAgentHoldingTheVault(policy: .open)
        try backendLogin()
        let refreshToken = try backendRefreshToken()
        for reply in try tokenReplies(3, profile: "hub") {
            XCTAssertFalse(reply.frame.contains(refreshToken), "a reply carries no refresh token")
        }
    }

    /// With an expired access token, 30 token requests from 6 processes at once and 4 `coffer
    /// token` processes make exactly one refresh_token grant at the backend; every caller gets
    /// the same new token, which the backend accepts, and the agent stored the rotated refresh token.
    func testManyCallersWithAnExpiredBackendTokenMakeOneRefresh() async throws {
        let lifetime = TimeInterval(6 * TestTiming.scale)
        try await startBackend(tokenLifetime: lifetime)
        try startAgentHoldingTheVault(policy: .open)
        try backendLogin()
        let before = try backendRefreshToken()
        let json = try coffer(["token", "--profile", "hub", "--json"])
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any], json.stderrText)
        let first = try XCTUnwrap(fields["token"] as? String)
        let expiresAt = try XCTUnwrap((fields["expiresAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        XCTAssertEqual(backend.statistics.refreshRequests, 0)
        // Until the agent takes the token as expired (its leeway is half the token's life), with
        // a second for the whole seconds of `expiresAt`.
        usleep(useconds_t(max(0, expiresAt.addingTimeInterval(1 - lifetime / 2).timeIntervalSinceNow) * 1_000_000))

        let tokens = try tokensAtOnce(helpers: 6, commands: 4, profile: "hub", tokenArguments: ["token", "--profile", "hub"])
        XCTAssertEqual(tokens.count, 34)
        XCTAssertEqual(Set(tokens).count, 1, "every caller got the same token")
        XCTAssertNotEqual(tokens[0], first, "a new token")
        XCTAssertEqual(backend.statistics.refreshRequests, 1, "one refresh request for every caller")
        XCTAssertNotEqual(try backendRefreshToken(), before, "the rotated refresh token is stored")
    }

    /// `coffer status` asks the agent (exit 0, authorized, no token shown); `coffer logout
    /// --profile hub` has the agent revoke the refresh token at the backend and remove the
    /// login; `coffer token --profile hub` is then exit 4.
    func testStatusAndLogoutOfTheBackendLoginGoThroughTheAgent() async throws {
        try await startBackend()
        try startAgentHoldingTheVault()
        try backendLogin()
        let refreshToken = try backendRefreshToken()
        let status = try coffer(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText)
        XCTAssertTrue(status.stdoutText.contains(#""isAuthorized":true"#), status.stdoutText)
        XCTAssertFalse(status.stdout.contains(refreshToken))

        let logout = try coffer(["logout", "--profile", "hub"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertTrue(logout.stdoutText.contains("token revoked"), logout.stdoutText)
        XCTAssertTrue(backend.statistics.revokedKinds.contains("refresh"), "\(backend.statistics.revokedKinds)")
        let opened = try openVault()
        XCTAssertTrue(try opened.items(matching: ItemQuery(service: "coffer.openid")).isEmpty, "no item of the login is left")
        opened.lock()
        let token = try coffer(["token", "--profile", "hub"])
        XCTAssertEqual(token.status, 4, token.stderrText)
    }
}
