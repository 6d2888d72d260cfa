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

