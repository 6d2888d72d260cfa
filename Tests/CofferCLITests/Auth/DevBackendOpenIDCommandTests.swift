import CofferTestSupport
import Foundation
import XCTest

/// `coffer dev-backend`'s OpenID options.
final class DevBackendOpenIDCommandTests: XCTestCase {
    var cli: CofferCLI!

    override func setUp() async throws {
        cli = try CofferCLI.withNewVault()
    }

    override func tearDown() async throws {
        cli.remove()
    }

    /// `--help` lists the OpenID endpoints, clients and switches.
    func testHelpListsTheOpenIDProvider() throws {
        let help = try cli.run(["dev-backend", "--help"])
        for text in [
            "issuer <base URL>/oidc", "/oidc/.well-known/openid-configuration", "/oidc/authorize", "/oidc/device/verify", "/oidc/jwks",
            "coffer-native (public, no secret)", "coffer-confidential:coffer-confidential-secret", "--oidc-auto-approve",
            "--oidc-test-endpoints", "--device-interval", "--oidc-client",
        ] {
            XCTAssertTrue(help.stdoutText.contains(text), text)
        }
    }

    /// With --allow-remote, the switches that sign anyone in are refused; an auto-approve user
    /// must be a configured one.
    func testRemoteAndUsageRefusals() throws {
        let remote = ["dev-backend", "--host", "0.0.0.0", "--allow-remote", "--user", "a:b", "--oauth-client", "c:d"]
        for option in [["--oidc-auto-approve", "a"], ["--oidc-test-endpoints"]] {
            let refused = try cli.run(remote + option)
            XCTAssertEqual(refused.exitStatus, .usage, option.joined(separator: " "))
            XCTAssertTrue(refused.stderrText.contains("refused with --allow-remote"), refused.stderrText)
        }
        let unknownUser = try cli.run(["dev-backend", "--oidc-auto-approve", "nobody"])
        XCTAssertEqual(unknownUser.exitStatus, .usage)
        XCTAssertEqual(try cli.run(["dev-backend", "--device-interval", "-1"]).exitStatus, .usage)
        XCTAssertEqual(try cli.run(["dev-backend", "--oidc-client", ":x"]).exitStatus, .usage)
    }

    /// The options reach the provider: the device interval, the test approval endpoint.
    func testOptionsReachTheProvider() throws {
        let server = try ChildProcess.start(
            CofferCLI.executable, ["dev-backend", "--device-interval", "0", "--oidc-test-endpoints", "--oidc-client", "my-app"],
            environment: cli.environment, inputs: [0: nil])
        defer { _ = server.stop() }
        let baseURL = try server.firstLine(timeout: .seconds(20))
        let device = try post(baseURL + "/oidc/device", "client_id=my-app&scope=openid")
        XCTAssertEqual(device.status, 200)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: device.body) as? [String: Any])
        XCTAssertEqual(object["interval"] as? Int, 0)
        let userCode = try XCTUnwrap(object["user_code"] as? String)
        let approved = try post(baseURL + "/oidc/device/approve", "user_code=\(userCode)&user=demo")
        XCTAssertEqual(approved.status, 200)
        let defaultClient = try post(baseURL + "/oidc/device", "client_id=coffer-native")
        XCTAssertEqual(defaultClient.status, 401, "--oidc-client replaces the default clients")
    }

    /// A form POST with curl (no URLSession on this platform's test runner): status and body.
    private func post(_ url: String, _ form: String) throws -> (status: Int, body: Data) {
        let output = try ChildProcess.run(
            "/usr/bin/curl", ["-sS", "--noproxy", "*", "-o", "-", "-w", "\n%{http_code}", "--data-binary", "@-", url], stdin: Data(form.utf8),
            timeout: .seconds(20))
        XCTAssertEqual(output.status, 0, output.stderrText)
        var text = output.stdoutText
        let newline = try XCTUnwrap(text.lastIndex(of: "\n"))
        let status = Int(text[text.index(after: newline)...]) ?? 0
        text = String(text[..<newline])
        return (status, Data(text.utf8))
    }
}
