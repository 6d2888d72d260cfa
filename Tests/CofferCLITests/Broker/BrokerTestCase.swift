import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// What the token broker's tests share (docs/agent.md, "The token broker"): a real agent
/// holding a real vault, and the logins of ``BrokerLogins``.
class BrokerTestCase: CLITestCase, BrokerLogins {
    var server: OIDCTestServer!
    var helper: String { BuiltProducts.executable("coffer-test-helper").path }
    var realVault: String { vault.resolvingSymlinksInPath().path }

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

