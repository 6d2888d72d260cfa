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

    /// A program allowed a login's tokens (granted, and answered `once` by the prompter) cannot
    /// replace the login: its `keep login`, naming another token endpoint and more programs, is
    /// refused without anyone being asked, logged `denied`, and leaves the login's settings,
    /// session and access list as they were; the owner's logins and tokens go on. Before, a
    /// granted program could point the login at its own token endpoint while a refresh ran, and
    /// be sent the rotated refresh token (found by review on 2026-11-29), or widen the list.
    func testAProgramAllowedTheTokensCannotReplaceTheLogin() async throws {
        let prompts = folder.file("prompts")
        try startAgentHoldingTheVault(prompter: "echo asked >> '\(prompts.path)'; echo once")
        try await login()
        XCTAssertEqual(try coffer(["access", "grant", "coffer.openid", "default", helper]).status, 0)
        XCTAssertEqual(try helperTokens(1).status, 0, "the helper gets the login's tokens")

        let settingsID = BrokeredSessions.settingsID(profile: "default")
        func stored() throws -> (settings: Data?, session: [String: Any]?, access: ItemAccess?) {
            let opened = try openVault()
            defer { opened.lock() }
            return (try opened.secret(for: settingsID), try storedSession(), try opened.access(for: settingsID))
        }
        let before = try stored()
        var settings = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(before.settings)) as? [String: Any])
        var provider = try XCTUnwrap(settings["provider"] as? [String: Any])
        provider["tokenEndpoint"] = "http://127.0.0.1:9/token"
        settings["provider"] = provider
        let forged = try JSONSerialization.data(withJSONObject: [
            "settings": settings, "session": try XCTUnwrap(before.session), "allowed": ["/usr/bin/perl"],
        ])
        let kept = try ChildProcess.run(helper, ["agent-keep-login", agentSocket.path, realVault, "default"], stdin: forged)
        XCTAssertEqual(kept.status, 13, kept.stdoutText + kept.stderrText)
        XCTAssertTrue(kept.stdoutText.hasPrefix("denied"), kept.stdoutText)

        let after = try stored()
        XCTAssertEqual(after.settings, before.settings, "the login still refreshes where it did")
        XCTAssertEqual(after.access, before.access, "nobody was added to the login's list")
        XCTAssertEqual(after.session?["refreshToken"] as? String, before.session?["refreshToken"] as? String)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prompts.path), "a replacement is never asked about")
        let opened = try openVault()
        let entry = try XCTUnwrap(try opened.auditLog().first { $0.action.rawValue == "write" && $0.item == settingsID })
        XCTAssertEqual(entry.decision.rawValue, "denied")
        XCTAssertEqual(entry.program.map { String(decoding: $0.executablePath, as: UTF8.self) }, URL(fileURLWithPath: helper).resolvingSymlinksInPath().path)
        opened.lock()

        let token = try coffer(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        try await login()
        XCTAssertNotEqual(try stored().session?["refreshToken"] as? String, before.session?["refreshToken"] as? String, "the owner logs in again")
    }

    /// A token request for a profile nobody logged in to is exit 4 (log in), with no token.
    func testAProfileWithNoLoginIsExit4() throws {
        try startAgentHoldingTheVault()
        let token = try coffer(["token", "--profile", "other"])
        XCTAssertEqual(token.exitStatus, .loginNeeded, token.stderrText)
        XCTAssertEqual(token.stdout, Data())
    }
}
