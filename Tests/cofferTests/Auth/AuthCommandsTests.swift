import AuthTestSupport
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
                XCTAssertFalse(output.stdout.contains(secret) || output.stderr.contains(secret), "a secret was printed", file: file, line: line)
            }
        }
    }

    /// Login in one process persists: a second, separate process is authorized with no password and no token request.
    func testLoginPersistsAcrossTwoProcesses() throws {
        let login = try logIn()
        XCTAssertEqual(login.status, 0, login.stderr)
        XCTAssertTrue(login.stdout.hasPrefix("logged in as demo"), login.stdout)
        XCTAssertEqual(backend.statistics.tokenRequests, 1)

        let request = try cli.run(["request", "/protected"])
        XCTAssertEqual(request.status, 0, request.stderr)
        XCTAssertEqual(JSONValueText.user(in: request.stdout), user.name)
        XCTAssertEqual(backend.statistics.tokenRequests, 1, "the second process used the stored token")

        let status = try cli.run(["status", "--json"])
        XCTAssertEqual(status.status, 0)
        XCTAssertTrue(status.stdout.contains(#""isAuthorized":true"#), status.stdout)
        assertNoSecrets([login, request, status])
    }

    /// HTTP Basic login: a wrong password is refused with exit 4 and stores nothing; the right one works.
    func testBasicLoginIsCheckedAndWrongPasswordRefused() throws {
        let arguments = ["login", "--backend-url", url, "--backend-id", "coffer-dev", "--user", user.name]
        let wrong = try cli.run(arguments, stdin: "wrong\n")
        XCTAssertEqual(wrong.status, 4)
        XCTAssertEqual(wrong.stderr, "coffer: the backend rejected the credentials\n")
        let status = try cli.run(["status"])
        XCTAssertEqual(status.status, 4)
        XCTAssertEqual(status.stdout, "not logged in\n")

        let right = try cli.run(arguments, stdin: user.password)
        XCTAssertEqual(right.status, 0, right.stderr)
        let request = try cli.run(["request", url + "/protected"])
        XCTAssertTrue(request.stdout.contains(#""authenticatedBy":"basic""#), request.stdout)
        assertNoSecrets([wrong, right, request])
    }

    /// Logout removes the session and the backend profile from the vault and revokes the token.
    func testLogoutRemovesTheSessionAndRevokes() throws {
        XCTAssertEqual(try logIn().status, 0)
        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderr)
        XCTAssertEqual(logout.stdout, "logged out; token revoked\n")
        XCTAssertEqual(backend.statistics.revocations, 1)
        let list = try cli.run(["list", "--service", "coffer.auth"])
        XCTAssertFalse(list.stdout.contains("session") || list.stdout.contains("backend"), list.stdout)
        let request = try cli.run(["request", "/protected"])
        XCTAssertEqual(request.status, 4)
        XCTAssertEqual(request.stderr, "coffer: not logged in\n")
    }

    /// With the backend unreachable, logout still clears the vault and exits 75 naming the failed revocation.
    func testLogoutWithTheBackendDownClearsLocallyAndSaysWhatFailed() async throws {
        XCTAssertEqual(try logIn().status, 0)
        await backend.stop()
        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.status, 75, logout.stderr)
        XCTAssertTrue(logout.stderr.hasPrefix("coffer: logout incomplete: revokeToken: cannot reach the backend"), logout.stderr)
        let status = try cli.run(["status"])
        XCTAssertEqual(status.stdout, "not logged in\n")
        backend = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
    }

    /// `coffer sso-exchange --store` reads the third-party token on stdin; the stored token authorizes later processes.
    func testSSOExchangeStoresTheToken() throws {
        let exchange = try cli.run(["sso-exchange", "--store", "--backend-url", url, "--backend-id", "coffer-dev"],
                                   stdin: DevBackend.Configuration.defaultSSOToken.token)
        XCTAssertEqual(exchange.status, 0, exchange.stderr)
        XCTAssertTrue(exchange.stdout.hasSuffix("; stored in the vault\n"), exchange.stdout)
        let request = try cli.run(["request", "/protected"])
        XCTAssertTrue(request.stdout.contains(#""authenticatedBy":"sso""#), request.stdout)
        XCTAssertFalse(exchange.stdout.contains(DevBackend.Configuration.defaultSSOToken.token))
    }

    /// `coffer sso-exchange` without --store checks the exchange but stores nothing.
    func testSSOExchangeWithoutStoreStoresNothing() throws {
        let exchange = try cli.run(["sso-exchange", "--backend-url", url, "--backend-id", "coffer-dev"],
                                   stdin: DevBackend.Configuration.defaultSSOToken.token)
        XCTAssertEqual(exchange.status, 0, exchange.stderr)
        XCTAssertEqual(try cli.run(["status"]).status, 4)
    }

    /// An HTTP error from the resource prints its body and exits 5.
    func testRequestOfAMissingResourceExits5() throws {
        XCTAssertEqual(try logIn().status, 0)
        let request = try cli.run(["request", "/nowhere"])
        XCTAssertEqual(request.status, 5)
        XCTAssertEqual(request.stderr, "coffer: HTTP 404\n")
    }

    /// A backend that sends a malformed token reply gives exit 76 and a one-line reason.
    func testMalformedReplyExits76() throws {
        backend.faults.inject(.body("{", contentType: "application/json"), on: .token)
        let login = try logIn()
        XCTAssertEqual(login.status, 76)
        XCTAssertEqual(login.stderr, "coffer: malformed reply from the backend: the body is not valid JSON\n")
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
        XCTAssertEqual(login.status, 0, login.stderr)
        let stopped = try XCTUnwrap(server.stop())
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertFalse(stopped.stderr.contains("bob:pw"), "the server logs no credentials")
    }

    /// `coffer dev-backend --help` lists its defaults: the demo user, the backend id and the client.
    func testDevBackendHelpListsDefaults() throws {
        let help = try cli.run(["dev-backend", "--help"])
        for text in ["coffer-dev", "\(user.name):\(user.password)", "\(client.id):\(client.secret)"] {
            XCTAssertTrue(help.stdout.contains(text), text)
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
