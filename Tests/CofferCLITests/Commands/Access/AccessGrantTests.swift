import CofferTestSupport
import Foundation
import XCTest

/// `coffer access grant` and `revoke`: what they record, what they refuse, and that they take
/// the vault's credential.
final class AccessGrantTests: AccessCLITestCase {
    /// A grant records the program's real path (a symbolic link resolved, as the kernel names a
    /// running program), unpinned; show lists it; granting it again changes nothing; revoke takes
    /// it off (by any path to the same file), and revoking it again says it was not there.
    func testGrantThenShowThenRevoke() throws {
        try initVaultWithItem()
        let link = folder.file("true-link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/bin/true")
        let granted = try coffer(["access", "grant", "mail", "ada", link])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        XCTAssertEqual(granted.stdoutText, "allowed /usr/bin/true to read mail ada\n")

        let allowed = try XCTUnwrap(try show()["allowed"] as? [[String: Any]])
        XCTAssertEqual(allowed.count, 1)
        XCTAssertEqual(allowed[0]["executable"] as? String, "/usr/bin/true")
        XCTAssertEqual(allowed[0]["executablePinned"] as? Bool, false)
        XCTAssertNil(allowed[0]["executableSHA256"], "no digest without --pin")
        XCTAssertEqual(Set(allowed[0].keys), ["executable", "executablePinned", "description"])
        XCTAssertTrue(try coffer(["access", "show", "mail", "ada"]).stdoutText.contains("allowed: /usr/bin/true\n"))
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"]).stdoutText, "/usr/bin/true already reads mail ada\n")

        let revoked = try coffer(["access", "revoke", "mail", "ada", link])
        XCTAssertEqual(revoked.status, 0, revoked.stderrText)
        XCTAssertEqual(revoked.stdoutText, "/usr/bin/true no longer reads mail ada\n")
        XCTAssertEqual((try show()["allowed"] as? [Any])?.count, 0)
        let again = try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true"])
        XCTAssertEqual(again.status, 0, again.stderrText)
        XCTAssertEqual(again.stdoutText, "/usr/bin/true was not on the access list of mail ada\n")
    }

    /// `--pin` records the SHA-256 of the executable and of the script, pinned, so that a
    /// modified file no longer has the recorded digest; show reports the pins. A grant without
    /// --pin of a file the user can change says that --pin would protect it. Granting the same
    /// program again without --pin replaces the pinned entry.
    func testPinRecordsTheDigestsOfExecutableAndScript() throws {
        try initVaultWithItem()
        let tool = try ownExecutable("tool")
        let script = folder.file("job.py").path
        try Data("print('job')\n".utf8).write(to: URL(fileURLWithPath: script))
        let (toolDigest, scriptDigest) = (try sha256(tool), try sha256(script))
        let granted = try coffer(["access", "grant", "mail", "ada", tool, "--script", script, "--pin"])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        XCTAssertEqual(granted.stderrText, "", "a pinned grant needs no note")

        let entry = try XCTUnwrap((try show()["allowed"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["executable"] as? String, realPath(tool))
        XCTAssertEqual(entry["executableSHA256"] as? String, toolDigest)
        XCTAssertEqual(entry["executablePinned"] as? Bool, true)
        XCTAssertEqual(entry["script"] as? String, realPath(script))
        XCTAssertEqual(entry["scriptSHA256"] as? String, scriptDigest)
        XCTAssertEqual(entry["scriptPinned"] as? Bool, true)
        let text = try coffer(["access", "show", "mail", "ada"]).stdoutText
        XCTAssertTrue(
            text.contains("allowed: \(realPath(tool)) running \(realPath(script)) (pinned: executable sha256 \(toolDigest.prefix(12))…, script sha256 \(scriptDigest.prefix(12))…)\n"),
            text)

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tool))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        XCTAssertNotEqual(try sha256(tool), entry["executableSHA256"] as? String, "the modified file no longer has the pinned digest")

        let unpinned = try coffer(["access", "grant", "mail", "ada", tool, "--script", script])
        XCTAssertEqual(unpinned.status, 0, unpinned.stderrText)
        XCTAssertEqual(
            unpinned.stderrText,
            "coffer: note: your user can change \(realPath(tool)) and \(realPath(script)); with --pin, a changed file loses access\n")
        let replaced = try XCTUnwrap(try show()["allowed"] as? [[String: Any]])
        XCTAssertEqual(replaced.count, 1, "the same program: one entry")
        XCTAssertEqual(replaced[0]["executablePinned"] as? Bool, false)
        XCTAssertEqual(replaced[0]["scriptPinned"] as? Bool, false)
    }

    /// A sandbox app and a systemd service are part of the program: shown with `in` and `as`,
    /// and a revoke must name them too.
    func testSandboxAndUnitArePartOfTheProgram() throws {
        try initVaultWithItem()
        let granted = try coffer(["access", "grant", "mail", "ada", "/usr/bin/true", "--flatpak", "org.example.App", "--unit", "backup.service"])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        let entry = try XCTUnwrap((try show()["allowed"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["app"] as? String, "flatpak:org.example.App")
        XCTAssertEqual(entry["unit"] as? String, "backup.service")
        XCTAssertEqual(entry["description"] as? String, "/usr/bin/true in flatpak:org.example.App as backup.service")
        XCTAssertEqual(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true"]).stdoutText, "/usr/bin/true was not on the access list of mail ada\n")
        XCTAssertEqual(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true", "--flatpak", "org.example.App", "--unit", "backup.service"]).status, 0)
        XCTAssertEqual((try show()["allowed"] as? [Any])?.count, 0)

        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true", "--flatpak", "a.b", "--snap", "c"]).exitStatus, .usage)
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true", "--unit", "backup.timer"]).exitStatus, .usage)
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true", "--snap", "Not_A_Snap"]).exitStatus, .usage)
    }

    /// PROGRAM (and --script) must be absolute paths: a relative one is a usage error (64), as
    /// is a program that is not there, or a pin of a file that cannot be read; nothing changes
    /// and nothing is logged.
    func testARelativeOrMissingProgramIsAUsageError() throws {
        try initVaultWithItem()
        assertFailure(
            try coffer(["access", "grant", "mail", "ada", "usr/bin/true"]), status: .usage,
            message: "PROGRAM must be an absolute path (the program's executable), not usr/bin/true")
        assertFailure(
            try coffer(["access", "revoke", "mail", "ada", "true"]), status: .usage,
            message: "PROGRAM must be an absolute path (the program's executable), not true")
        assertFailure(
            try coffer(["access", "grant", "mail", "ada", "/usr/bin/true", "--script", "job.py"]), status: .usage,
            message: "--script must be an absolute path (the program's executable), not job.py")
        let missing = folder.file("missing").path
        assertFailure(
            try coffer(["access", "grant", "mail", "ada", missing]), status: .usage, message: "PROGRAM \(missing): No such file or directory")
        assertFailure(
            try coffer(["access", "grant", "mail", "ada", "/usr/bin", "--pin"]), status: .usage,
            message: "PROGRAM /usr/bin is not a regular file that can be read, so it cannot be pinned")
        XCTAssertEqual((try show()["allowed"] as? [Any])?.count, 0)
        XCTAssertEqual(try log().count, 0)
    }

    /// grant, revoke and policy with a wrong passphrase fail with exit 2 and change nothing:
    /// the access list, the policy and the log are as they were.
    func testAWrongPassphraseChangesNothing() throws {
        try initVaultWithItem()
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/env"]).status, 0)
        let wrong = ["COFFER_PASSPHRASE": "not the passphrase"]
        assertFailure(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"], environment: wrong), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/env"], environment: wrong), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["access", "policy", "open"], environment: wrong), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["set", "mail", "ada", "--allow", "/usr/bin/true"], stdin: Data("new".utf8), environment: wrong), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["access", "show", "mail", "ada"], environment: wrong), status: .locked, message: "wrong passphrase")
        assertFailure(try coffer(["access", "log"], environment: wrong), status: .locked, message: "wrong passphrase")

        let shown = try show()
        XCTAssertEqual((shown["allowed"] as? [[String: Any]])?.map { $0["executable"] as? String }, ["/usr/bin/env"])
        XCTAssertEqual(shown["policy"] as? String, "confirm")
        XCTAssertEqual(try log().count, 1, "only the first grant")
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).stdoutText, "first")
    }

    /// The agent holding the vault unlocked is not enough: with no credential, grant and policy
    /// fail (exit 2) although `get` reads through the agent, and nothing changes.
    func testTheAgentAloneCannotChangeAccess() throws {
        try initVaultWithItem()
        try startAgent()
        let unlocked = try coffer(["unlock"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
        let noCredential: [String: String?] = ["COFFER_PASSPHRASE": nil]
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).stdoutText, "first", "the agent serves the vault")
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"], environment: noCredential).exitStatus, .locked)
        XCTAssertEqual(try coffer(["access", "policy", "open"], environment: noCredential).exitStatus, .locked)
        XCTAssertEqual(try coffer(["set", "mail", "ada", "--allow", "/usr/bin/true"], stdin: Data("x".utf8), environment: noCredential).exitStatus, .locked)
        XCTAssertEqual((try show()["allowed"] as? [Any])?.count, 0)
        XCTAssertEqual(try show()["policy"] as? String, "confirm")
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).stdoutText, "first")
    }

    /// Each grant and revoke that changes the list is one audit entry (front door cli, decision
    /// credential, the program granted or revoked, the item); one that changes nothing is none.
    func testGrantsAndRevokesAreLogged() throws {
        try initVaultWithItem()
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"]).status, 0)
        XCTAssertEqual(try coffer(["access", "grant", "mail", "ada", "/usr/bin/true"]).status, 0)
        XCTAssertEqual(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true"]).status, 0)
        XCTAssertEqual(try coffer(["access", "revoke", "mail", "ada", "/usr/bin/true"]).status, 0)
        let entries = try log()
        XCTAssertEqual(entries.map { $0["action"] as? String }, ["revoke", "grant"], "newest first, changes only")
        for entry in entries {
            XCTAssertEqual(entry["frontDoor"] as? String, "cli")
            XCTAssertEqual(entry["decision"] as? String, "credential")
            XCTAssertEqual((entry["program"] as? [String: Any])?["executable"] as? String, "/usr/bin/true")
            XCTAssertEqual(entry["item"] as? [String: String], ["class": "genericPassword", "service": "mail", "account": "ada"])
        }
    }
}
