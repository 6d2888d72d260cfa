import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// `coffer login --issuer`, `token`, `status`, `request` and `logout` for OpenID logins, each a
/// separate `coffer` process, against the dev backend's OpenID provider.
final class OpenIDCommandsTests: XCTestCase {
    var backend: DevBackend!
    var cli: CofferCLI!
    let user = DevBackend.Configuration.defaultUser

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(
            tokenLifetime: TimeInterval(4 * TestTiming.scale), logger: quietLogger,
            openID: OpenIDProviderConfiguration(deviceApprovalEndpoint: true, deviceInterval: 0)))
        cli = try CofferCLI.withNewVault()
    }

    override func tearDown() async throws {
        await backend.stop()
        cli.remove()
    }

    private var issuer: String { backend.issuer.absoluteString }

    private func login(_ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess.start(
            CofferCLI.executable, ["login", "--issuer", issuer, "--client-id", "coffer-native"] + extra,
            environment: cli.environment, inputs: [0: Data()])
    }

    /// A device login: the three lines, exactly, on stderr; approved through the server.
    private func deviceLogin(profile: String? = nil) throws -> ChildProcess.Output {
        let process = try login(["--device"] + (profile.map { ["--profile", $0] } ?? []))
        let lines = try process.errorLines(3, timeout: .seconds(20))
        XCTAssertTrue(lines[0].hasPrefix("verification URI: http://127.0.0.1:"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("user code: "), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("verification URI complete: "), lines[2])
        XCTAssertTrue(backend.approveDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count)), as: user.name))
        return try process.wait(timeout: .seconds(30))
    }

    /// The browser flow with --no-open: the authorization URL alone on a stderr line; a
    /// browser (played here) logs in, and the login ends "logged in as demo (<issuer>)".
    func testBrowserLoginPrintsTheURLAndWaitsForTheRedirect() async throws {
        let process = try login(["--browser", "--no-open"])
        let url = try XCTUnwrap(URL(string: try process.errorLines(1, timeout: .seconds(20))[0]))
        let redirect = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
        let callback = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: url, redirectURI: redirect)
        XCTAssertEqual(callback.status, 200)
        let output = try process.wait(timeout: .seconds(30))
        XCTAssertEqual(output.status, 0, output.stderrText)
        XCTAssertEqual(output.stdoutText, "logged in as \(user.name) (\(issuer))\n")
        XCTAssertFalse(output.stderrText.contains(user.password))
    }

    /// With $DISPLAY or $WAYLAND_DISPLAY the default is the browser flow (here with --no-open:
    /// the URL alone on stderr), asking for `openid profile offline_access` unless --scope
    /// says otherwise; with neither, the device flow.
    func testTheFlowFollowsTheDisplayAndTheScopeIsSent() throws {
        for (display, extra, scope) in [
            ("DISPLAY", [String](), "openid profile offline_access"), ("WAYLAND_DISPLAY", ["--scope", "openid email"], "openid email"),
        ] {
            var environment = cli.environment
            environment[display] = ":0"
            let process = try ChildProcess.start(
                CofferCLI.executable, ["login", "--issuer", issuer, "--client-id", "coffer-native", "--no-open"] + extra,
                environment: environment, inputs: [0: Data()])
            let url = try XCTUnwrap(URLComponents(string: try process.errorLines(1, timeout: .seconds(20))[0]), display)
            process.stop()
            XCTAssertEqual(url.path, backend.authorizationEndpoint.path, display)
            XCTAssertEqual(url.queryItems?.first { $0.name == "scope" }?.value, scope, display)
        }
        let device = try login(["--no-open"])
        XCTAssertTrue(try device.errorLines(1, timeout: .seconds(20))[0].hasPrefix("verification URI: "), "no display: the device flow")
        device.stop()
    }

    /// A plain-HTTP issuer that is not loopback is refused before any connection (exit 64).
    func testAPlainHTTPRemoteIssuerIsRefused() throws {
        let refused = try cli.run(["login", "--issuer", "http://192.0.2.1:8080", "--client-id", "c", "--device"])
        XCTAssertEqual(refused.status, 64, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("plain HTTP"), refused.stderrText)
    }

    /// --api replaces the default API origin (the issuer's): the token goes only to those named.
    func testAPIOriginsAreTheOnesNamed() throws {
        let process = try login(["--device", "--api", "http://127.0.0.2:9", "--api", "https://api.example.com"])
        let lines = try process.errorLines(3, timeout: .seconds(20))
        XCTAssertTrue(backend.approveDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count)), as: user.name))
        XCTAssertEqual(try process.wait(timeout: .seconds(30)).status, 0)
        let status = try cli.run(["status", "--json"])
        let origins = (try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["apiOrigins"] as? [String]
        XCTAssertEqual(origins.map(Set.init), ["http://127.0.0.2:9", "https://api.example.com"])
        let issuerOrigin = try cli.run(["request", backend.userinfoEndpoint.absoluteString])
        XCTAssertEqual(issuerOrigin.status, 64, "the issuer's origin is no longer an API origin: \(issuerOrigin.stderrText)")
    }

    /// The device flow, then `token`, `status --json` (no token in it), `request` to an API
    /// origin (and not to another), and `logout` with both tokens revoked.
    func testDeviceLoginTokenStatusRequestLogout() throws {
        let loggedIn = try deviceLogin()
        XCTAssertEqual(loggedIn.status, 0, loggedIn.stderrText)
        XCTAssertEqual(loggedIn.stdoutText, "logged in as \(user.name) (\(issuer))\n")

        let token = try cli.run(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        let value = token.stdoutText.trimmingCharacters(in: .newlines)
        XCTAssertFalse(value.isEmpty)

        let status = try cli.run(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText)
        XCTAssertFalse(status.stdoutText.contains(value), "status never shows a token")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        XCTAssertEqual(json["issuer"] as? String, issuer)
        XCTAssertEqual(json["user"] as? String, user.name)
        XCTAssertEqual(json["refreshTokenHeld"] as? Bool, true)
        XCTAssertNotNil(json["subject"] as? String)
        XCTAssertNotNil((json["expiresAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })

        let request = try cli.run(["request", backend.userinfoEndpoint.absoluteString])
        XCTAssertEqual(request.status, 0, request.stderrText)
        XCTAssertTrue(request.stdoutText.contains(#""preferred_username":"demo""#), request.stdoutText)
        let elsewhere = try cli.run(["request", "http://127.0.0.2:9/steal"])
        XCTAssertEqual(elsewhere.status, 64, elsewhere.stderrText)

        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 2)
        XCTAssertEqual(try cli.run(["token"]).status, 4, "logged out")
    }

    /// Several `coffer token` processes started together with an expired access token make
    /// exactly one refresh between them, and all print the same new token.
    func testConcurrentTokenCommandsRefreshOnce() throws {
        XCTAssertEqual(try deviceLogin().status, 0)
        usleep(useconds_t(2_500_000 * TestTiming.scale))  // the 4 s token is within its leeway (half its life) of expiry
        let processes = try (0..<5).map { _ in try ChildProcess.start(CofferCLI.executable, ["token"], environment: cli.environment) }
        let outputs = try processes.map { try $0.wait(timeout: .seconds(30)) }
        XCTAssertEqual(outputs.map(\.status), [0, 0, 0, 0, 0], outputs.map(\.stderrText).joined())
        XCTAssertEqual(Set(outputs.map(\.stdoutText)).count, 1)
        XCTAssertEqual(backend.statistics.refreshRequests, 1)
        XCTAssertEqual(backend.statistics.refreshReuses, 0)
    }

    /// The provider refusing the refresh token: exit 10, "log in again", and the login is gone.
    func testARefusedRefreshTokenIsExit10() throws {
        XCTAssertEqual(try deviceLogin().status, 0)
        usleep(useconds_t(2_500_000 * TestTiming.scale))
        backend.openIDFaults.arm(.refreshInvalidGrant)
        let token = try cli.run(["token"])
        XCTAssertEqual(token.status, 10)
        XCTAssertEqual(token.stderrText, "coffer: the session has ended at the provider; log in again\n")
        XCTAssertEqual(try cli.run(["token"]).status, 4)
    }

    /// A denied device login is exit 11; an ID token that fails its checks is exit 12 and
    /// nothing is stored.
    func testDeniedAndUntrustedLogins() throws {
        let denied = try login(["--device"])
        let lines = try denied.errorLines(2, timeout: .seconds(20))
        XCTAssertTrue(backend.denyDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count))))
        let deniedOutput = try denied.wait(timeout: .seconds(30))
        XCTAssertEqual(deniedOutput.status, 11, deniedOutput.stderrText)

        backend.openIDFaults.arm(.idTokenWrongAudience)
        let untrusted = try deviceLogin()
        XCTAssertEqual(untrusted.status, 12, untrusted.stderrText)
        XCTAssertTrue(untrusted.stderrText.contains("untrusted reply from the provider"), untrusted.stderrText)
        XCTAssertEqual(try cli.run(["token"]).status, 4, "nothing was stored")
    }

    /// Profiles keep logins apart, and `logout --all` ends every one of them.
    func testProfilesAndLogoutAll() throws {
        XCTAssertEqual(try deviceLogin(profile: "work").status, 0)
        XCTAssertEqual(try deviceLogin(profile: "home").status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "work"]).status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "home"]).status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "default"]).status, 4)

        // status, request and logout each act on the profile named.
        let status = try cli.run(["status", "--profile", "work", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["profile"] as? String, "work")
        let request = try cli.run(["request", "--profile", "home", backend.userinfoEndpoint.absoluteString])
        XCTAssertEqual(request.status, 0, request.stderrText)
        let one = try cli.run(["logout", "--profile", "work"])
        XCTAssertEqual(one.status, 0, one.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 2, "work's refresh and access tokens")
        XCTAssertEqual(try cli.run(["status", "--profile", "work"]).status, 4)
        XCTAssertEqual(try cli.run(["token", "--profile", "home"]).status, 0, "another profile's login stays")

        XCTAssertEqual(try deviceLogin(profile: "work").status, 0)
        let all = try cli.run(["logout", "--all"])
        XCTAssertEqual(all.status, 0, all.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 6)
        XCTAssertEqual(try cli.run(["token", "--profile", "work"]).status, 4)
        XCTAssertEqual(try cli.run(["list", "--service", "coffer.openid"]).stdoutText, "")
    }
}
