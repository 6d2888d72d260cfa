import CofferTestSupport
import CofferDevBackend
import Foundation
import XCTest

/// The auth commands, run as separate `coffer` processes against an in-process dev backend.
final class AuthCommandsTests: XCTestCase {
    var backend: DevBackend!
    var cli: CofferCLI!
    let user = DevBackend.Configuration.defaultUser
    let client = DevBackend.Configuration.defaultClient

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
        cli = try CofferCLI.withNewVault()
    }

    override func tearDown() async throws {
        await backend.stop()
        cli.remove()
    }

    private var url: String { backend.baseURL.absoluteString }

    /// `coffer login` with OAuth: password on stdin, client secret on fd 3.
    private func logIn(password: String? = nil) throws -> ChildProcess.Output {
        try cli.run(
            ["login", "--backend-url", url, "--backend-id", "coffer-dev", "--user", user.name,
             "--oauth-token-url", url + "/oauth2/v1/token", "--client-id", client.id, "--client-secret-fd", "3",
             "--revocation-url", url + "/oauth2/v1/revoke"],
            stdin: (password ?? user.password) + "\n", inputs: [3: Data(client.secret.utf8)])
    }

    /// No secret shows up in any output.
    private func assertNoSecrets(_ outputs: [ChildProcess.Output], file: StaticString = #filePath, line: UInt = #line) {
        for output in outputs {
            for secret in [user.password, client.secret] {
                XCTAssertFalse(output.stdoutText.contains(secret) || output.stderrText.contains(secret), "a secret was printed", file: file, line: line)
            }
        }
    }

    /// Login in one process persists: a second, separate process is authorized with no password and no token request.
    func testLoginPersistsAcrossTwoProcesses() throws {
        let login = try logIn()
        XCTAssertEqual(login.status, 0, login.stderrText)
        XCTAssertTrue(login.stdoutText.hasPrefix("logged in as demo"), login.stdoutText)
        XCTAssertEqual(backend.statistics.tokenRequests, 1)

        let request = try cli.run(["request", "/protected"])
        XCTAssertEqual(request.status, 0, request.stderrText)
        XCTAssertEqual(JSONValueText.user(in: request.stdoutText), user.name)
        XCTAssertEqual(backend.statistics.tokenRequests, 1, "the second process used the stored token")

        let status = try cli.run(["status", "--json"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.stdoutText.contains(#""isAuthorized":true"#), status.stdoutText)
        assertNoSecrets([login, request, status])
    }

    /// `coffer status` once the OAuth token has expired while the session holds its refresh
    /// token: the next request renews it without the user, so the exit status is 0 and the JSON
    /// says a refresh is needed. Nothing goes over the network.
    func testStatusIsZeroWhileTheStoredSessionRenewsItsToken() async throws {
        await backend.stop()
        backend = try await DevBackend.start(DevBackend.Configuration(tokenLifetime: 1, logger: quietLogger))
        XCTAssertEqual(try logIn().status, 0)
        usleep(1_100_000)  // the 1 s token has expired (its leeway is half its life)
        let json = try cli.run(["status", "--json"])
        XCTAssertEqual(json.status, 0, json.stderrText)
        XCTAssertTrue(json.stdoutText.contains(#""isAuthorized":false"#), json.stdoutText)
        XCTAssertTrue(json.stdoutText.contains(#""isRenewable":true"#), json.stdoutText)
        XCTAssertTrue(json.stdoutText.contains(#""needsRefresh":true"#), json.stdoutText)
        XCTAssertTrue(json.stdoutText.contains(#""needsLogin":false"#), json.stdoutText)
        let text = try cli.run(["status"])
        XCTAssertEqual(text.status, 0, text.stderrText)
        XCTAssertTrue(text.stdoutText.contains("the next request renews it"), text.stdoutText)
        XCTAssertEqual(backend.statistics.tokenRequests, 1, "status reads the store only")
    }

    /// `coffer status` once an exchanged SSO token has expired: nothing renews it, so a new
    /// login is needed, exit 4, and the JSON says so.
    func testStatusIsFourWhenTheTokenExpiredAndNothingRenewsIt() async throws {
        await backend.stop()
        backend = try await DevBackend.start(DevBackend.Configuration(exchangeTokenLifetime: 1, logger: quietLogger))
        let exchange = try cli.run(["sso-exchange", "--store", "--backend-url", url, "--backend-id", "coffer-dev"],
                                   stdin: DevBackend.Configuration.defaultSSOToken.token)
        XCTAssertEqual(exchange.status, 0, exchange.stderrText)
        usleep(1_100_000)
        let json = try cli.run(["status", "--json"])
        XCTAssertEqual(json.exitStatus, .loginNeeded, json.stderrText)
        XCTAssertTrue(json.stdoutText.contains(#""isAuthorized":false"#), json.stdoutText)
        XCTAssertTrue(json.stdoutText.contains(#""needsRefresh":false"#), json.stdoutText)
        XCTAssertTrue(json.stdoutText.contains(#""needsLogin":true"#), json.stdoutText)
        XCTAssertTrue(try cli.run(["status"]).stdoutText.hasSuffix("; log in again\n"))
    }

    /// HTTP Basic login: a wrong password is refused with exit 4 and stores nothing; the right one works.
    func testBasicLoginIsCheckedAndWrongPasswordRefused() throws {
        let arguments = ["login", "--backend-url", url, "--backend-id", "coffer-dev", "--user", user.name]
        let wrong = try cli.run(arguments, stdin: "wrong\n")
        XCTAssertEqual(wrong.exitStatus, .loginNeeded)
        XCTAssertEqual(wrong.stderrText, "coffer: the backend rejected the credentials\n")
        let status = try cli.run(["status"])
        XCTAssertEqual(status.exitStatus, .loginNeeded)
        XCTAssertEqual(status.stdoutText, "not logged in\n")

        let right = try cli.run(arguments, stdin: user.password)
        XCTAssertEqual(right.status, 0, right.stderrText)
        let request = try cli.run(["request", url + "/protected"])
        XCTAssertTrue(request.stdoutText.contains(#""authenticatedBy":"basic""#), request.stdoutText)
        assertNoSecrets([wrong, right, request])
    }

    /// Logout removes the session and the backend profile from the vault and revokes the token.
    func testLogoutRemovesTheSessionAndRevokes() throws {
        XCTAssertEqual(try logIn().status, 0)
        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertEqual(logout.stdoutText, "logged out; token revoked\n")
        XCTAssertEqual(backend.statistics.revocations, 2, "the refresh token, then the access token")
        let list = try cli.run(["list", "--service", "coffer.auth"])
        XCTAssertFalse(list.stdoutText.contains("session") || list.stdoutText.contains("backend"), list.stdoutText)
        let request = try cli.run(["request", "/protected"])
        XCTAssertEqual(request.exitStatus, .loginNeeded)
        XCTAssertEqual(request.stderrText, "coffer: not logged in\n")
    }

    /// With the backend unreachable, logout still clears the vault and exits 6 naming the failed revocation.
    func testLogoutWithTheBackendDownClearsLocallyAndSaysWhatFailed() async throws {
        XCTAssertEqual(try logIn().status, 0)
        await backend.stop()
        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.exitStatus, .logoutIncomplete, logout.stderrText)
        XCTAssertTrue(logout.stderrText.hasPrefix("coffer: logout incomplete: revokeRefreshToken: cannot reach the backend"), logout.stderrText)
        let status = try cli.run(["status"])
        XCTAssertEqual(status.stdoutText, "not logged in\n")
        backend = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
    }

    /// `coffer sso-exchange --store` reads the third-party token on stdin; the stored token authorizes later processes.
    func testSSOExchangeStoresTheToken() throws {
        let exchange = try cli.run(["sso-exchange", "--store", "--backend-url", url, "--backend-id", "coffer-dev"],
                                   stdin: DevBackend.Configuration.defaultSSOToken.token)
        XCTAssertEqual(exchange.status, 0, exchange.stderrText)
        XCTAssertTrue(exchange.stdoutText.hasSuffix("; stored in the vault\n"), exchange.stdoutText)
        let request = try cli.run(["request", "/protected"])
        XCTAssertTrue(request.stdoutText.contains(#""authenticatedBy":"sso""#), request.stdoutText)
        XCTAssertFalse(exchange.stdoutText.contains(DevBackend.Configuration.defaultSSOToken.token))
    }

    /// `coffer sso-exchange` without --store checks the exchange but stores nothing.
    func testSSOExchangeWithoutStoreStoresNothing() throws {
        let exchange = try cli.run(["sso-exchange", "--backend-url", url, "--backend-id", "coffer-dev"],
                                   stdin: DevBackend.Configuration.defaultSSOToken.token)
        XCTAssertEqual(exchange.status, 0, exchange.stderrText)
        XCTAssertEqual(try cli.run(["status"]).exitStatus, .loginNeeded)
    }

    /// An HTTP error from the resource prints its body and exits 5.
    func testRequestOfAMissingResourceExits5() throws {
        XCTAssertEqual(try logIn().status, 0)
        let request = try cli.run(["request", "/nowhere"])
        XCTAssertEqual(request.exitStatus, .httpError)
        XCTAssertEqual(request.stderrText, "coffer: HTTP 404\n")
    }

    /// A backend that sends a malformed token reply gives exit 76 and a one-line reason.
    func testMalformedReplyExits76() throws {
        backend.faults.inject(.body("{", contentType: "application/json"), on: .token)
        let login = try logIn()
        XCTAssertEqual(login.exitStatus, .badReply)
        XCTAssertEqual(login.stderrText, "coffer: malformed reply from the backend: the body is not valid JSON\n")
    }

    /// `coffer dev-backend` prints its base URL first, serves the configured user, and stops on SIGTERM.
    func testDevBackendCommandPrintsItsBaseURLFirst() throws {
        let server = try ChildProcess.start(
            CofferCLI.executable, ["dev-backend", "--backend-id", "cli-backend", "--user", "bob:bob:pw"],
            environment: cli.environment, inputs: [0: nil])
        defer { server.stop() }
        let baseURL = try server.firstLine(timeout: .seconds(20))
        XCTAssertTrue(baseURL.hasPrefix("http://127.0.0.1:"), baseURL)
        let login = try cli.run(["login", "--backend-url", baseURL, "--backend-id", "cli-backend", "--user", "bob"], stdin: "bob:pw")
        XCTAssertEqual(login.status, 0, login.stderrText)
        let stopped = try XCTUnwrap(server.stop())
        XCTAssertEqual(stopped.status, 0, stopped.stderrText)
        XCTAssertFalse(stopped.stderrText.contains("bob:pw"), "the server logs no credentials")
    }

    /// A backend on plain HTTP to a host that is not loopback is refused (exit 64) before the
    /// password is read or any connection is made: before, `Authorization: Basic` went in clear.
    func testPlainHTTPToARemoteBackendIsRefused() throws {
        let message = "invalid request: refusing plain HTTP to 192.0.2.1: credentials and tokens go only over HTTPS or to a loopback address (opt in with allowInsecureHTTP, or --insecure-http)"
        let basic = try cli.run(["login", "--backend-url", "http://192.0.2.1", "--backend-id", "b", "--user", "u"], stdin: "pw\n")
        XCTAssertEqual(basic.exitStatus, .usage)
        XCTAssertEqual(basic.stderrText, "coffer: \(message)\n")
        let token = try cli.run(
            ["login", "--backend-url", url, "--backend-id", "coffer-dev", "--user", user.name, "--oauth-token-url", "http://192.0.2.1/token",
             "--client-id", client.id, "--client-secret-fd", "3"],
            stdin: user.password, inputs: [3: Data(client.secret.utf8)])
        XCTAssertEqual(token.exitStatus, .usage)
        XCTAssertEqual(token.stderrText, "coffer: \(message)\n")
        let request = try cli.run(["request", "http://192.0.2.1/mfp/balance", "--mobilefirst"])
        XCTAssertEqual(request.exitStatus, .usage)
        XCTAssertEqual(backend.statistics.tokenRequests + backend.statistics.basicChecks, 0)
    }

    /// `--insecure-http` lets plain HTTP reach a host that is not loopback, with a warning on
    /// stderr. (0.0.0.0 is not loopback by the rule, yet on Linux it reaches this machine.)
    func testInsecureHTTPOptsInWithAWarning() throws {
        let port = try XCTUnwrap(backend.baseURL.port)
        let remoteURL = "http://0.0.0.0:\(port)"
        let arguments = ["login", "--backend-url", remoteURL, "--backend-id", "coffer-dev", "--user", user.name,
                         "--oauth-token-url", remoteURL + "/oauth2/v1/token", "--client-id", client.id, "--client-secret-fd", "3"]
        XCTAssertEqual(try cli.run(arguments, stdin: user.password, inputs: [3: Data(client.secret.utf8)]).exitStatus, .usage)
        let login = try cli.run(arguments + ["--insecure-http"], stdin: user.password, inputs: [3: Data(client.secret.utf8)])
        XCTAssertEqual(login.status, 0, login.stderrText)
        XCTAssertTrue(login.stderrText.contains("sending credentials over plain HTTP to a host that is not loopback"), login.stderrText)
        assertNoSecrets([login])
    }

    /// The dev backend refuses a host that is not loopback, and with --allow-remote it still
    /// requires explicit users and clients, since the defaults are published.
    func testDevBackendRefusesARemoteHostWithPublishedCredentials() throws {
        let refused = try cli.run(["dev-backend", "--host", "0.0.0.0"])
        XCTAssertEqual(refused.exitStatus, .usage)
        XCTAssertTrue(refused.stderrText.contains("add --allow-remote"), refused.stderrText)
        let defaults = try cli.run(["dev-backend", "--host", "0.0.0.0", "--allow-remote"])
        XCTAssertEqual(defaults.exitStatus, .usage)
        XCTAssertEqual(defaults.stderrText, "coffer: --allow-remote needs --user and --oauth-client: the default user and client are published\n")
        let partial = try cli.run(["dev-backend", "--host", "::", "--allow-remote", "--user", "a:b"])
        XCTAssertEqual(partial.exitStatus, .usage)
    }

    /// `logout --all` ends the login (token revoked) and every MobileFirst client (logged out of
    /// its security check at the server), and removes every coffer.auth item, the client's
    /// registration included: before, client items with their secret and token stayed.
    func testLogoutAllEndsEverySessionAndClient() throws {
        XCTAssertEqual(try logIn().status, 0)
        let balance = try cli.run(
            ["request", backend.mobileFirstURL("balance").absoluteString, "--mobilefirst", "--answers-json-fd", "3"],
            inputs: [3: Data(#"{"PinCodeAttempts": [{"pin": "1234"}]}"#.utf8)])
        XCTAssertEqual(balance.status, 0, balance.stderrText)
        XCTAssertEqual(try cli.run(["list", "--service", "coffer.auth"]).stdoutText.split(separator: "\n").count, 3, "backend, session, client")

        let logout = try cli.run(["logout", "--all"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertEqual(try cli.run(["list", "--service", "coffer.auth"]).stdoutText, "")
        XCTAssertEqual(backend.statistics.revocations, 2, "the session's refresh and access tokens")
        XCTAssertEqual(backend.statistics.checkLogouts, 1)
        XCTAssertEqual(try cli.run(["status"]).exitStatus, .loginNeeded)
        XCTAssertEqual(try cli.run(["logout", "--all"]).status, 0, "nothing left is not an error")
    }

    /// `coffer dev-backend --help` lists its defaults: the demo user, the backend id and the client.
    func testDevBackendHelpListsDefaults() throws {
        let help = try cli.run(["dev-backend", "--help"])
        for text in ["coffer-dev", "\(user.name):\(user.password)", "\(client.id):\(client.secret)"] {
            XCTAssertTrue(help.stdoutText.contains(text), text)
        }
    }
}

/// Reads the `user` member of a JSON reply printed by `coffer request`.
enum JSONValueText {
    static func user(in text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return object["user"] as? String
    }
}
