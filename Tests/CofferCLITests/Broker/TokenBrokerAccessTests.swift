import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// Who gets a brokered login's tokens (docs/agent.md, "The token broker"; docs/security.md): the
/// program that logged in silently, other programs as the vault's access policy and the person
/// decide, exactly as for items; every token handed out, and every refusal, is an audit entry
/// with the program, the profile and the scope, never a token.
final class TokenBrokerAccessTests: BrokerTestCase {
    /// Under the default policy (`confirm`) with no prompter: `coffer login` (run by `coffer-auth`,
    /// the login's owner) puts `coffer` on the profile's access list, and `coffer token`, which
    /// `coffer` answers from the agent itself, gets tokens without anyone being asked; another
    /// program (the test helper) is refused, with exit 13, and gets no token; once `coffer access
    /// grant` puts it on the profile's list, it gets tokens too. The log has each decision:
    /// `allowed` (coffer), `no-prompter`, `allowed`, with the profile and the scope, and no token.
    func testTheOwnerGetsTokensSilentlyAndOthersAsThePolicySays() async throws {
        try startAgentHoldingTheVault()
        try await login()
        let owned = try coffer(["token"])
        XCTAssertEqual(owned.status, 0, owned.stderrText)
        let authPath = BuiltProducts.executable("coffer-auth").resolvingSymlinksInPath().path
        let cofferPath = BuiltProducts.executable("coffer").resolvingSymlinksInPath().path
        let access = try XCTUnwrap(try openVault().access(for: BrokeredSessions.settingsID(profile: "default")))
        XCTAssertEqual(access.owner.map { String(decoding: $0.executablePath, as: UTF8.self) }, authPath)
        XCTAssertEqual(access.allowed.map { String(decoding: $0.executablePath, as: UTF8.self) }, [cofferPath], "coffer login lists coffer")

        let refused = try helperTokens(1)
        XCTAssertEqual(refused.status, 13, refused.stdoutText + refused.stderrText)
        XCTAssertTrue(Self.replies(refused).allSatisfy { $0.line == "denied" }, refused.stdoutText)

        let granted = try coffer(["access", "grant", "coffer.openid", "default", helper])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        let allowed = try helperTokens(1)
        XCTAssertEqual(allowed.status, 0, allowed.stdoutText + allowed.stderrText)

        let log = try tokenLog()
        let helperPath = URL(fileURLWithPath: helper).resolvingSymlinksInPath().path
        XCTAssertEqual(log.map(\.program), [cofferPath, helperPath, helperPath], "coffer itself asked the agent: \(log)")
        XCTAssertEqual(log.map(\.decision), ["allowed", "no-prompter", "allowed"], "\(log)")
        XCTAssertTrue(log[0].item.hasPrefix("default scope=") && log[0].item.contains("openid"), "the profile and the scope: \(log[0].item)")
        XCTAssertEqual(log[1].item, "default", "a refusal names the profile")
        let audit = try auditBytes()
        XCTAssertFalse(audit.contains(try refreshToken()))
        XCTAssertFalse(audit.contains(owned.stdoutText.trimmingCharacters(in: .newlines)))
    }

    /// Under `confirm` with a prompter, another program's first token request asks the person
    /// (the prompter is told the program and the login), and `always` puts it on the profile's
    /// list: its next request gets a token without anyone being asked. `coffer`, which the login
    /// lists, is never asked.
    func testAnotherProgramIsAskedAboutAndAlwaysGrantsIt() async throws {
        let prompts = folder.file("prompts")
        try startAgentHoldingTheVault(prompter: "printf '%s|%s\\n' \"$COFFER_PROMPT_PROGRAM\" \"$COFFER_PROMPT_ITEM\" >> '\(prompts.path)'; echo always")
        try await login()
        XCTAssertEqual(try coffer(["token"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prompts.path), "coffer, on the list from the login, is not asked about")

        let first = try helperTokens(1)
        XCTAssertEqual(first.status, 0, first.stdoutText + first.stderrText)
        let asked = try String(contentsOf: prompts, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(asked.count, 1, "\(asked)")
        XCTAssertTrue(asked[0].hasPrefix(URL(fileURLWithPath: helper).resolvingSymlinksInPath().path), "\(asked)")
        XCTAssertTrue(asked[0].contains("default"), "the question names the login: \(asked)")
        let second = try helperTokens(1)
        XCTAssertEqual(second.status, 0, second.stdoutText + second.stderrText)
        XCTAssertEqual(try String(contentsOf: prompts, encoding: .utf8).split(separator: "\n").count, 1, "asked once")
        XCTAssertEqual(try tokenLog().map(\.decision), ["allowed", "always", "allowed"])
    }

    /// Under `strict`, another program is refused without anyone being asked; under `open`, it
    /// gets the token (logged `open`).
    func testStrictRefusesAndOpenLetsOtherProgramsHaveTokens() async throws {
        try startAgentHoldingTheVault(policy: .strict)
        try await login()
        let refused = try helperTokens(1)
        XCTAssertEqual(refused.status, 13, refused.stdoutText + refused.stderrText)
        try openVault().setAccessPolicy(.open)
        let allowed = try helperTokens(1)
        XCTAssertEqual(allowed.status, 0, allowed.stdoutText + allowed.stderrText)
        XCTAssertEqual(try tokenLog().map(\.decision), ["denied", "open"])
    }

    /// A token request for a profile nobody logged in to is exit 4 (log in), with no token.
    func testAProfileWithNoLoginIsExit4() throws {
        try startAgentHoldingTheVault()
        let token = try coffer(["token", "--profile", "other"])
        XCTAssertEqual(token.exitStatus, .loginNeeded, token.stderrText)
        XCTAssertEqual(token.stdout, Data())
    }
}
