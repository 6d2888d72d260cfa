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
        var configuration = DevBackend.Configuration(
            tokenLifetime: TimeInterval(4 * TestTiming.scale), logger: quietLogger,
            openID: OpenIDProviderConfiguration(deviceApprovalEndpoint: true, deviceInterval: 0))
        // A login's token expires within the test; a refreshed one does not, however loaded the
        // machine: commands that find it later take it, and refresh nothing.
        configuration.refreshedTokenLifetime = 3600
        backend = try await DevBackend.start(configuration)
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

    /// The browser is opened on a page only the user can read (0600, in the run-time folder)
    /// that leads to the authorization URL, never on the URL itself: another local user can
    /// read every command line in /proc, and the URL carries the login's `state`. A stand-in
    /// `xdg-open` on PATH, then a `$BROWSER` with `%s`, record their argv; neither holds the
    /// state, and the page is removed once the login ends. The browser gets the session's
    /// environment (`DISPLAY`) but no `COFFER_*` variable (here `COFFER_VAULT`, `COFFER_KEYFILE`).
    func testTheBrowserIsOpenedOnAPrivatePageNeverOnTheURL() async throws {
        let bin = TemporaryFolder()
        for (name, browser) in [("xdg-open", nil), ("my-browser", "my-browser --new-window %s:xdg-open")] as [(String, String?)] {
            let record = bin.file(name + ".record")
            let opener = """
                #!/bin/sh
                for word in "$0" "$@"; do printf '%s\n' "$word"; done > '\(record.path).argv'
                env | cut -d= -f1 > '\(record.path).environment'
                page=$(for word in "$@"; do :; done; printf '%s' "$word")
                stat -c %a "$page" > '\(record.path).mode'
                cp "$page" '\(record.path).page'
                printf '%s' "$page" > '\(record.path)'

                """
            try Data(opener.utf8).write(to: bin.file(name))
            chmod(bin.file(name).path, 0o755)
            var environment = cli.environment
            environment["DISPLAY"] = ":0"
            environment["BROWSER"] = browser
            environment["PATH"] = bin.url.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let process = try ChildProcess.start(
                CofferCLI.executable, ["login", "--issuer", issuer, "--client-id", "coffer-native", "--browser"],
                environment: environment, inputs: [0: Data()])
            let url = try XCTUnwrap(URL(string: try process.errorLines(1, timeout: .seconds(20))[0]))
            let state = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
            let deadline = Date().addingTimeInterval(TimeInterval(20 * TestTiming.scale))
            while !FileManager.default.fileExists(atPath: record.path), Date() < deadline { usleep(20_000) }
            let argv = try String(contentsOf: URL(fileURLWithPath: record.path + ".argv"), encoding: .utf8)
            XCTAssertFalse(argv.contains(state), "\(name): the state is on the opener's command line: \(argv)")
            XCTAssertFalse(argv.contains("code_challenge"), argv)
            if browser != nil { XCTAssertTrue(argv.contains("--new-window\n"), "$BROWSER's own words are kept: \(argv)") }
            XCTAssertEqual(try String(contentsOf: URL(fileURLWithPath: record.path + ".mode"), encoding: .utf8), "600\n")
            let names = try String(contentsOf: URL(fileURLWithPath: record.path + ".environment"), encoding: .utf8).split(separator: "\n")
            XCTAssertEqual(names.filter { $0.hasPrefix("COFFER_") }, [], "\(name): no COFFER_ variable reaches the browser")
            XCTAssertTrue(names.contains("DISPLAY"), "\(name): the session's variables do")
            let page = try String(contentsOf: URL(fileURLWithPath: record.path + ".page"), encoding: .utf8)
            XCTAssertTrue(page.contains(url.absoluteString.replacingOccurrences(of: "&", with: "&amp;")), "the page leads to the URL")
            let pagePath = try String(contentsOf: record, encoding: .utf8)
            XCTAssertTrue(pagePath.hasPrefix(cli.folder.path + "/coffer/"), "in the user's run-time folder: \(pagePath)")

            let redirect = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
            let callback = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: url, redirectURI: redirect)
            XCTAssertEqual(callback.status, 200)
            let output = try process.wait(timeout: .seconds(30))
            XCTAssertEqual(output.status, 0, output.stderrText)
            XCTAssertFalse(FileManager.default.fileExists(atPath: pagePath), "the page is removed once the login ends")
            try FileManager.default.removeItem(at: record)
        }
    }

    /// `--redirect-uri` takes only a loopback http URI with a port (anything else is exit 64,
    /// before any connection), and listens on exactly that port and path.
    func testRedirectURIIsCheckedAndUsed() async throws {
        for bad in ["https://127.0.0.1:8400/cb", "http://127.0.0.1/cb", "http://example.com:8400/cb", "http://127.0.0.1:8400/cb?x"] {
            let refused = try cli.run(["login", "--issuer", issuer, "--client-id", "coffer-native", "--redirect-uri", bad])
            XCTAssertEqual(refused.exitStatus, .usage, "\(bad): \(refused.stderrText)")
        }
        let port = try LoopbackPort.free()
        let process = try login(["--no-open", "--redirect-uri", "http://127.0.0.1:\(port)/callback"])
        let url = try XCTUnwrap(URL(string: try process.errorLines(1, timeout: .seconds(20))[0]))
        let redirect = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
        XCTAssertEqual(redirect, "http://127.0.0.1:\(port)/callback", "sent exactly as given")
        let callback = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: url, redirectURI: redirect)
        XCTAssertEqual(callback.status, 200)
        let output = try process.wait(timeout: .seconds(30))
        XCTAssertEqual(output.status, 0, output.stderrText)

        let busy = try login(["--no-open", "--redirect-uri", "http://127.0.0.1:\(port)/callback", "--profile", "second"])
        _ = try busy.errorLines(1, timeout: .seconds(20))
        let clash = try cli.run(["login", "--issuer", issuer, "--client-id", "coffer-native", "--no-open", "--redirect-uri", "http://127.0.0.1:\(port)/callback", "--profile", "third"])
        XCTAssertEqual(clash.exitStatus, .unavailable, clash.stderrText)
        XCTAssertTrue(clash.stderrText.contains("the port is in use"), clash.stderrText)
        busy.stop()
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
        XCTAssertEqual(refused.exitStatus, .usage, refused.stderrText)
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
        XCTAssertEqual(issuerOrigin.exitStatus, .usage, "the issuer's origin is no longer an API origin: \(issuerOrigin.stderrText)")
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
        XCTAssertEqual(elsewhere.exitStatus, .usage, elsewhere.stderrText)

        let logout = try cli.run(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 2)
        XCTAssertEqual(try cli.run(["token"]).exitStatus, .loginNeeded, "logged out")
    }

    /// `coffer status` once the access token has expired while the refresh token is held: the
    /// login still authorizes a request without the user, so the exit status is 0 (as `gh auth
    /// status`), and the JSON says a refresh is needed. Nothing goes over the network.
    func testStatusIsZeroWhileAHeldRefreshTokenRenewsTheLogin() throws {
        XCTAssertEqual(try deviceLogin().status, 0)
        usleep(useconds_t(2_500_000 * TestTiming.scale))  // the 4 s token is within its leeway (half its life) of expiry
        let json = try cli.run(["status", "--json"])
        XCTAssertEqual(json.status, 0, json.stderrText)
        let shown = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(shown["isAuthorized"] as? Bool, false)
        XCTAssertEqual(shown["refreshTokenHeld"] as? Bool, true)
        XCTAssertEqual(shown["needsRefresh"] as? Bool, true)
        XCTAssertEqual(shown["needsLogin"] as? Bool, false)
        let text = try cli.run(["status"])
        XCTAssertEqual(text.status, 0, text.stderrText)
        XCTAssertTrue(text.stdoutText.hasSuffix("the access token has expired; the next command refreshes it\n"), text.stdoutText)
        XCTAssertEqual(backend.statistics.refreshRequests, 0, "status reads the store only")
    }

    /// `coffer status` once the access token has expired and no refresh token is held (the
    /// provider gave none): a new login is needed, exit 4, and the JSON says so.
    func testStatusIsFourWhenTheTokenExpiredWithNoRefreshToken() throws {
        let reply = #"{"access_token":"short-lived","token_type":"Bearer","expires_in":1,"scope":"profile"}"#
        backend.faults.inject(.body(reply, contentType: "application/json"), on: .token)
        let login = try login(["--device", "--scope", "profile"]).wait(timeout: .seconds(30))
        XCTAssertEqual(login.status, 0, login.stderrText)
        usleep(1_100_000)  // the 1 s token has expired (its leeway is half its life)
        let json = try cli.run(["status", "--json"])
        XCTAssertEqual(json.exitStatus, .loginNeeded, json.stderrText)
        let shown = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(shown["isAuthorized"] as? Bool, false)
        XCTAssertEqual(shown["refreshTokenHeld"] as? Bool, false)
        XCTAssertEqual(shown["needsRefresh"] as? Bool, false)
        XCTAssertEqual(shown["needsLogin"] as? Bool, true)
        XCTAssertEqual(try cli.run(["status"]).exitStatus, .loginNeeded)
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
        XCTAssertEqual(token.exitStatus, .refreshRefused)
        XCTAssertEqual(token.stderrText, "coffer: the session has ended at the provider; log in again\n")
        XCTAssertEqual(try cli.run(["token"]).exitStatus, .loginNeeded)
    }

    /// A provider that ends the session refuses the refresh with HTTP 400 and an empty body:
    /// `coffer token` says "log in again" (exit 10) once and forgets the session, instead of
    /// exit 76 on every call.
    func testARefreshRefusedWithAnEmptyBodyIsExit10() throws {
        XCTAssertEqual(try deviceLogin().status, 0)
        usleep(useconds_t(2_500_000 * TestTiming.scale))
        backend.faults.inject(.reply(status: 400, body: "", contentType: nil), on: .token)
        let token = try cli.run(["token"])
        XCTAssertEqual(token.exitStatus, .refreshRefused, token.stderrText)
        XCTAssertEqual(token.stderrText, "coffer: the session has ended at the provider; log in again\n")
        XCTAssertEqual(try cli.run(["token"]).exitStatus, .loginNeeded, "the session is gone")
    }

    /// A denied device login is exit 11; an ID token that fails its checks is exit 12 and
    /// nothing is stored.
    func testDeniedAndUntrustedLogins() throws {
        let denied = try login(["--device"])
        let lines = try denied.errorLines(2, timeout: .seconds(20))
        XCTAssertTrue(backend.denyDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count))))
        let deniedOutput = try denied.wait(timeout: .seconds(30))
        XCTAssertEqual(deniedOutput.exitStatus, .loginDenied, deniedOutput.stderrText)

        backend.openIDFaults.arm(.idTokenWrongAudience)
        let untrusted = try deviceLogin()
        XCTAssertEqual(untrusted.exitStatus, .untrustedReply, untrusted.stderrText)
        XCTAssertTrue(untrusted.stderrText.contains("untrusted reply from the provider"), untrusted.stderrText)
        XCTAssertEqual(try cli.run(["token"]).exitStatus, .loginNeeded, "nothing was stored")
    }

    /// A provider that refuses a public client's revocation with 401: `logout --all` says
    /// "logout incomplete" once, names each failed step once, and says the provider requires
    /// client authentication (a public client sends no credentials to be "rejected").
    func testLogoutAllNamesEachRefusedRevocationOnce() throws {
        XCTAssertEqual(try deviceLogin(profile: "work").status, 0)
        XCTAssertEqual(try deviceLogin(profile: "home").status, 0)
        backend.faults.inject(.reply(status: 401, body: "", contentType: nil), on: .revocation, times: Int.max)
        let all = try cli.run(["logout", "--all"])
        XCTAssertEqual(all.exitStatus, .logoutIncomplete, all.stderrText)
        let message = all.stderrText
        XCTAssertEqual(message.components(separatedBy: "logout incomplete").count, 2, message)
        XCTAssertFalse(message.contains("rejected the credentials"), message)
        for profile in ["work", "home"] {
            for step in ["revokeRefreshToken", "revokeToken"] {
                let named = "profile \(profile): \(step): the provider requires client authentication for revocation"
                XCTAssertEqual(message.components(separatedBy: named).count, 2, "\(named) once in: \(message)")
            }
        }
        XCTAssertEqual(try cli.run(["token", "--profile", "work"]).exitStatus, .loginNeeded, "everything local is removed")
    }

    /// A confidential client's secret comes from `--client-secret-fd` (never the command line):
    /// the right one logs in, a wrong one is exit 4, and the secret is printed nowhere.
    func testClientSecretFromADescriptor() async throws {
        let secret = "coffer-confidential-secret"
        for (given, expected) in [("not-the-secret", Int32(4)), (secret, 0)] {
            let process = try ChildProcess.start(
                CofferCLI.executable,
                ["login", "--issuer", issuer, "--client-id", "coffer-confidential", "--client-secret-fd", "3", "--browser", "--no-open"],
                environment: cli.environment, inputs: [0: Data(), 3: Data(given.utf8)])
            let url = try XCTUnwrap(URL(string: try process.errorLines(1, timeout: .seconds(20))[0]))
            let redirect = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
            _ = try await BrowserPlayer(username: user.name, password: user.password).logIn(at: url, redirectURI: redirect)
            let output = try process.wait(timeout: .seconds(30))
            XCTAssertEqual(output.status, expected, output.stderrText)
            XCTAssertFalse(output.stderrText.contains(given) || output.stdoutText.contains(given), "the secret was printed")
        }
        let token = try cli.run(["token"])
        XCTAssertEqual(token.status, 0, "the confidential client refreshes with its stored secret: \(token.stderrText)")
    }

    /// `--timeout` bounds the wait for the browser's redirect: exit 75 when nobody comes back,
    /// in about the time given; out of range is a usage error.
    func testTimeoutBoundsTheWait() throws {
        let started = ContinuousClock.now
        let output = try cli.run(["login", "--issuer", issuer, "--client-id", "coffer-native", "--browser", "--no-open", "--timeout", "1"])
        XCTAssertEqual(output.exitStatus, .timedOut, output.stderrText)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20))
        XCTAssertEqual(try cli.run(["login", "--issuer", issuer, "--client-id", "coffer-native", "--timeout", "0"]).exitStatus, .usage)
    }

    /// `--token-endpoint` (with `--device-endpoint` and `--jwks-uri`) logs in without fetching
    /// the provider's discovery document.
    func testExplicitEndpointsFetchNoDiscovery() throws {
        let process = try login([
            "--device", "--token-endpoint", backend.tokenEndpoint.absoluteString, "--device-endpoint",
            backend.deviceAuthorizationEndpoint.absoluteString, "--jwks-uri", backend.jwksURL.absoluteString,
        ])
        let lines = try process.errorLines(2, timeout: .seconds(20))
        XCTAssertTrue(backend.approveDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count)), as: user.name))
        let output = try process.wait(timeout: .seconds(30))
        XCTAssertEqual(output.status, 0, output.stderrText)
        XCTAssertEqual(backend.statistics.discoveryRequests, 0, "no discovery document was fetched")
        XCTAssertEqual(backend.statistics.metadataRequests, 1, "the JWKS, from --jwks-uri")
        XCTAssertEqual(try cli.run(["token"]).status, 0)
    }

    /// A bad profile name is a usage error (exit 64) with its reason on one line; before, the
    /// parser wrapped it and it exited 1, "item not found", printing the error's Swift dump.
    func testABadProfileNameIsAUsageError() throws {
        for command in ["status", "token", "logout"] {
            let refused = try cli.run([command, "--profile", "no spaces"])
            XCTAssertEqual(refused.exitStatus, .usage, "\(command): \(refused.stderrText)")
            XCTAssertEqual(refused.stderrText, "coffer: a profile name is 1-64 letters, digits, '.', '_' or '-' (see 'coffer help')\n")
        }
    }

    /// Profiles keep logins apart, and `logout --all` ends every one of them.
    func testProfilesAndLogoutAll() throws {
        XCTAssertEqual(try deviceLogin(profile: "work").status, 0)
        XCTAssertEqual(try deviceLogin(profile: "home").status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "work"]).status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "home"]).status, 0)
        XCTAssertEqual(try cli.run(["token", "--profile", "default"]).exitStatus, .loginNeeded)

        // status, request and logout each act on the profile named. The 4-second token may have
        // run out since (a loaded machine); the refresh token held keeps status at 0.
        let status = try cli.run(["status", "--profile", "work", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText)
        let shown = try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any]
        XCTAssertEqual(shown?["profile"] as? String, "work")
        XCTAssertEqual(shown?["refreshTokenHeld"] as? Bool, true, "the work profile's session is there")
        let request = try cli.run(["request", "--profile", "home", backend.userinfoEndpoint.absoluteString])
        XCTAssertEqual(request.status, 0, request.stderrText)
        let one = try cli.run(["logout", "--profile", "work"])
        XCTAssertEqual(one.status, 0, one.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 2, "work's refresh and access tokens")
        XCTAssertEqual(try cli.run(["status", "--profile", "work"]).exitStatus, .loginNeeded)
        XCTAssertEqual(try cli.run(["token", "--profile", "home"]).status, 0, "another profile's login stays")

        XCTAssertEqual(try deviceLogin(profile: "work").status, 0)
        let all = try cli.run(["logout", "--all"])
        XCTAssertEqual(all.status, 0, all.stderrText)
        XCTAssertEqual(backend.statistics.revocations, 6)
        XCTAssertEqual(try cli.run(["token", "--profile", "work"]).exitStatus, .loginNeeded)
        XCTAssertEqual(try cli.run(["list", "--service", "coffer.openid"]).stdoutText, "")
    }
}
