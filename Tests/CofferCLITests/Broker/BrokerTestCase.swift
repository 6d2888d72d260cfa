import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// What the token broker's tests share (docs/agent.md, "The token broker"): a real agent
/// holding a real vault, `coffer login` against django-oauth-toolkit on 127.0.0.1 (refresh
/// tokens rotated, replays revoking the family), and the vault read directly, as the person can,
/// to find the refresh token the agent keeps and check that it appears nowhere else.
class BrokerTestCase: CLITestCase {
    var server: OIDCTestServer!
    var helper: String { BuiltProducts.executable("coffer-test-helper").path }
    var realVault: String { vault.resolvingSymlinksInPath().path }

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

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try provider()
    }

    override class func tearDown() {
        OIDCTestServer.stopShared()
        super.tearDown()
    }

    /// Creates the vault, sets its access policy when given, starts the agent (with `--prompter`
    /// when given) and unlocks the vault into it.
    func startAgentHoldingTheVault(policy: AccessPolicy? = nil, prompter: String? = nil) throws {
        try initVault()
        if let policy { try openVault().setAccessPolicy(policy) }
        try startAgent(prompter.map { ["--prompter", $0] } ?? [])
        let unlocked = try coffer(["unlock", "--for", "10m"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
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

    /// `coffer-test-helper agent-tokens`: `count` token requests at once from one process.
    func helperTokens(_ count: Int, program: String? = nil, profile: String = "default") throws -> ChildProcess.Output {
        try ChildProcess.run(
            program ?? helper, ["agent-tokens", agentSocket.path, realVault, profile, "\(count)"], timeout: .seconds(60))
    }

    /// `count` token requests of `profile` from one test helper, each answered with a token:
    /// their lines and frames.
    func tokenReplies(_ count: Int, profile: String = "default") throws -> [(line: String, frame: Data)] {
        let output = try helperTokens(count, profile: profile)
        XCTAssertEqual(output.status, 0, output.stdoutText + output.stderrText)
        let replies = Self.replies(output)
        XCTAssertEqual(replies.count, count)
        for reply in replies {
            XCTAssertTrue(reply.line.hasPrefix("token "), reply.line)
            XCTAssertFalse(reply.frame.isEmpty)
        }
        return replies
    }

    /// The tokens that `helpers` test helpers (5 token requests each, on concurrent connections)
    /// and `commands` `coffer` processes (`tokenArguments`) get for `profile`, all started at
    /// once; each must succeed.
    func tokensAtOnce(helpers: Int, commands: Int, profile: String, tokenArguments: [String]) throws -> [String] {
        let helpers = try (0..<helpers).map { _ in try ChildProcess.start(helper, ["agent-tokens", agentSocket.path, realVault, profile, "5"]) }
        let commands = try (0..<commands).map { _ in
            try ChildProcess.start(BuiltProducts.executable("coffer").path, tokenArguments, environment: baseEnvironment)
        }
        var tokens: [String] = []
        for process in helpers {
            let output = try process.wait(timeout: .seconds(60))
            XCTAssertEqual(output.status, 0, output.stdoutText + output.stderrText)
            tokens += Self.replies(output).map { String($0.line.dropFirst("token ".count)) }
        }
        for process in commands {
            let output = try process.wait(timeout: .seconds(60))
            XCTAssertEqual(output.status, 0, output.stderrText)
            tokens.append(output.stdoutText.trimmingCharacters(in: .newlines))
        }
        return tokens
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

    /// Every audit entry's bytes as the vault stores them (before encryption): nothing in them may be a token.
    func auditBytes() throws -> Data {
        let opened = try openVault()
        defer { opened.lock() }
        return Data(try opened.auditLog().flatMap(\.encoded))
    }
}

extension Data {
    /// Whether `text`'s UTF-8 bytes appear anywhere in these bytes.
    func contains(_ text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}

