import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// The steps of a test that logs in through the agent's token broker (docs/agent.md, "The
/// token broker"): `coffer login` against django-oauth-toolkit on 127.0.0.1 (refresh tokens
/// rotated, replays revoking the family) while the agent holds the vault, and the vault read
/// directly, as the person can, to find the refresh token the agent keeps and check that it
/// appears nowhere else.
protocol BrokerLogins: CLITestCase {
    /// The provider the test logs in at (``provider(_:)``).
    var server: OIDCTestServer! { get }
}

extension BrokerLogins {
    /// The access tokens' lifetime at the provider: the agent takes one as expired half way
    /// (its clock-skew leeway is at most half a token's life), ``expiry`` after it was issued.
    static var tokenLifetime: Int { 10 * TestTiming.scale }
    static var expiry: useconds_t { useconds_t(tokenLifetime) * 500_000 + 300_000 }

    /// The provider (its discovery names its revocation endpoint); `extra` arguments for
    /// oidc_server.py (a grace period, a delay).
    func provider(_ extra: [String] = []) throws -> OIDCTestServer {
        try OIDCTestServer.shared(OIDCTestServer.Options(
            augmentDiscovery: true, testHooks: true, deviceInterval: 1, accessTokenTTL: Self.tokenLifetime, idTokenTTL: 86_400,
            extraArguments: extra))
    }

    func openVault() throws -> Vault {
        try Vault.open(at: vault, unlock: .passphrase(passphrase))
    }

    /// `coffer login --browser --no-open` with the public client; a browser (played) logs in.
    /// Returns the command's output.
    @discardableResult
    func login(profile: String? = nil) async throws -> ChildProcess.Output {
        let arguments = ["login", "--issuer", server.issuer.absoluteString, "--client-id", server.clients.native, "--browser", "--no-open"]
            + (profile.map { ["--profile", $0] } ?? [])
        let process = try ChildProcess.start(BuiltProducts.executable("coffer").path, arguments, environment: baseEnvironment)
        let callback = try await BrowserPlayer(username: server.username, password: server.password).logIn(printedBy: process)
        XCTAssertEqual(callback.status, 200)
        let output = try process.wait(timeout: .seconds(30))
        XCTAssertEqual(output.status, 0, output.stderrText)
        return output
    }

    /// The session the vault holds for `profile`, read directly: its refresh token is the
    /// secret nothing else may show.
    func storedSession(profile: String = "default") throws -> [String: Any]? {
        let opened = try openVault()
        defer { opened.lock() }
        for item in try opened.items(matching: ItemQuery(service: "coffer.openid")) where item.id.account.hasPrefix(profile + " ") {
            guard let data = try opened.secret(for: item.id) else { continue }
            return try JSONSerialization.jsonObject(with: data) as? [String: Any]
        }
        return nil
    }

    func refreshToken(profile: String = "default") throws -> String {
        try XCTUnwrap(try storedSession(profile: profile)?["refreshToken"] as? String, "the vault holds the session's refresh token")
    }

    /// Whether a refresh request beyond the `counted` ones reaches the provider within `seconds`
    /// (one the provider holds, started with `--refresh-delay`).
    func refreshArrives(after counted: (count: Int, refused: Int), within seconds: Int) async throws -> Bool {
        let deadline = Date().addingTimeInterval(Double(seconds))
        while Date() < deadline {
            if try await server.refreshCount().count > counted.count { return true }
            usleep(20_000)
        }
        return false
    }

    /// The tokens in a helper's output, and each reply's frame as it was read.
    static func replies(_ output: ChildProcess.Output) -> [(line: String, frame: Data)] {
        output.stdoutText.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", maxSplits: 1)
            return (String(parts[0]), parts.count == 2 ? Data(base64Encoded: String(parts[1])) ?? Data() : Data())
        }
    }

    /// The audit log's token entries, oldest first: program, action, the item (profile and scope) and decision.
    func tokenLog() throws -> [(program: String, item: String, decision: String)] {
        let opened = try openVault()
        defer { opened.lock() }
        return try opened.auditLog().reversed().filter { $0.action.rawValue == "token" }.map {
            ($0.program.map { String(decoding: $0.executablePath, as: UTF8.self) } ?? "none", $0.item?.account ?? "", $0.decision.rawValue)
        }
    }
}
