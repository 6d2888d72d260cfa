import Coffer
import CofferBase
import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// Per-application access on the agent's socket (docs/security.md, "Per-application access:
/// the agent's socket"), with a real agent process, real vault files and real programs: the test
/// helper, and a copy of it at another path, which is another program. The prompter notes each
/// run and answers what the test writes in a file.
final class AgentAccessTests: CLITestCase {
    private let service = "mail.example"
    private var helper: String { BuiltProducts.executable("coffer-test-helper").path }
    private var prompts: URL { folder.file("prompts") }
    private var answer: URL { folder.file("answer") }
    private var realVault: String { vault.resolvingSymlinksInPath().path }
    private let noCredential: [String: String?] = ["COFFER_PASSPHRASE": nil]

    /// A copy of the test helper at another path: the same bytes, another program.
    private func copyOfHelper(_ name: String = "other-program") throws -> String {
        let copy = folder.file(name).path
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: helper, toPath: copy)
            chmod(copy, 0o755)
        }
        return copy
    }

    /// Creates the vault (a new vault's policy is `confirm`), starts the agent with a prompter
    /// that writes the program it is asked about to ``prompts`` and answers what ``answer``
    /// holds (or with no prompter), and unlocks the vault into it.
    private func startAgentAndUnlock(prompter: Bool = true, answering word: String = "once") throws {
        try initVault()
        try Data(word.utf8).write(to: answer)
        let command = "printf '%s\\n' \"$COFFER_PROMPT_PROGRAM\" >> '\(prompts.path)'; cat '\(answer.path)'"
        try startAgent(prompter ? ["--prompter", command] : [])
        let unlocked = try coffer(["unlock"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
    }

    /// Runs `program` (the helper or a copy) with an agent command on this test's agent and vault.
    private func agent(_ program: String, _ command: String, _ arguments: [String] = [], stdin: Data = Data()) throws -> ChildProcess.Output {
        try ChildProcess.run(program, [command, agentSocket.path, realVault] + arguments, stdin: stdin, timeout: .seconds(60))
    }

    private func store(_ program: String, _ account: String, _ secret: String) throws {
        let stored = try agent(program, "agent-set", [service, account], stdin: Data(secret.utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
    }

    /// The programs the prompter was asked about, in order: each executable's path, without
    /// the pin the prompt's text adds.
    private var asked: [String] {
        ((try? String(contentsOf: prompts, encoding: .utf8)) ?? "").split(separator: "\n").map { line in
            String(line.split(separator: " (pinned", maxSplits: 1, omittingEmptySubsequences: false)[0])
        }
    }

    private func openVault() throws -> Vault {
        try Vault.open(at: vault, unlock: .passphrase(passphrase))
    }

    private func setPolicy(_ policy: AccessPolicy) throws {
        try openVault().setAccessPolicy(policy)
    }

    /// The decisions the audit log holds for `account`, oldest first, with who and what.
    private func log(_ account: String? = nil) throws -> [(program: String, action: String, decision: String)] {
        try openVault().auditLog().reversed().filter { account == nil || $0.item?.account == account }.map {
            ($0.program.map { String(decoding: $0.executablePath, as: UTF8.self) } ?? "none", $0.action.rawValue, $0.decision.rawValue)
        }
    }

    private func realPath(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }

    // MARK: - Confirm

    /// A program stores an item through the agent and reads it again without anyone being asked;
    /// another program (a copy of it elsewhere) is asked, and `once` lets it read this time
    /// without putting it on the access list. Every decision is in the log.
    func testTheOwnerReadsSilentlyAndOnceLetsAnotherProgramReadWithoutListingIt() throws {
        try startAgentAndUnlock(answering: "once")
        let other = try copyOfHelper()
        try store(helper, "ada", "s3cret")
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        XCTAssertEqual(asked, [], "the owner is not asked about")

        let read = try agent(other, "agent-get", [service, "ada"])
        XCTAssertEqual(read.status, 0, read.stderrText)
        XCTAssertEqual(read.stdoutText, "s3cret")
        XCTAssertEqual(asked, [realPath(other)])
        let access = try XCTUnwrap(try openVault().access(for: .genericPassword(service: service, account: "ada")))
        XCTAssertEqual(access.owner.map { String(decoding: $0.executablePath, as: UTF8.self) }, realPath(helper))
        XCTAssertEqual(access.allowed, [], "once adds nothing")
        let entries = try log("ada")
        XCTAssertEqual(entries.map(\.decision), ["owner", "owner", "once"])
        XCTAssertEqual(entries.map(\.action), ["write", "read", "read"])
        XCTAssertEqual(entries.map(\.program), [realPath(helper), realPath(helper), realPath(other)])
    }

    /// `always` lets the other program read and puts it on the item's access list: its next
    /// read asks nobody.
    func testAlwaysAddsTheProgramToTheListAndItsNextReadAsksNobody() throws {
        try startAgentAndUnlock(answering: "always")
        let other = try copyOfHelper()
        try store(helper, "ada", "s3cret")
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        XCTAssertEqual(asked, [realPath(other)], "asked once")
        let allowed = try XCTUnwrap(try openVault().access(for: .genericPassword(service: service, account: "ada"))).allowed
        XCTAssertEqual(allowed.map { String(decoding: $0.executablePath, as: UTF8.self) }, [realPath(other)])
        XCTAssertEqual(try log("ada").map(\.decision), ["owner", "always", "allowed"])
    }

    /// `deny` refuses with the typed error that names the program and `coffer access grant`
    /// (the helper exits 13 for it); without a prompter nobody can be asked and the read is
    /// refused at once. A write to the item is refused the same way, and the secret stays.
    /// Each refusal is in the log.
    func testDenyAndNoPrompterRefuseReadsAndWritesAndTheLogHasEachRefusal() throws {
        try startAgentAndUnlock(answering: "deny")
        let other = try copyOfHelper()
        try store(helper, "ada", "s3cret")
        let denied = try agent(other, "agent-get", [service, "ada"])
        XCTAssertEqual(denied.status, 13, denied.stderrText)
        XCTAssertEqual(denied.stdout, Data())
        XCTAssertTrue(denied.stderrText.contains("access denied to \(realPath(other))"), denied.stderrText)
        XCTAssertTrue(denied.stderrText.contains("coffer access grant"), denied.stderrText)
        let overwrite = try agent(other, "agent-set", [service, "ada"], stdin: Data("forged".utf8))
        XCTAssertEqual(overwrite.status, 13, overwrite.stderrText)
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret", "the write was refused")
        XCTAssertEqual(try agent(other, "agent-delete", [service, "ada"]).status, 13)
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret", "the delete was refused")

        agent?.stop()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        let nobodyToAsk = try agent(other, "agent-get", [service, "ada"])
        XCTAssertEqual(nobodyToAsk.status, 13, nobodyToAsk.stderrText)
        XCTAssertEqual(asked.count, 3, "the prompter ran for the read, the write and the delete of the first agent only")
        let entries = try log("ada")
        XCTAssertEqual(entries.map(\.decision), ["owner", "denied", "denied", "owner", "denied", "owner", "no-prompter"])
        XCTAssertEqual(entries.map(\.action), ["write", "read", "write", "read", "delete", "read", "read"])
        XCTAssertEqual(entries.filter { $0.decision != "owner" }.map(\.program), Array(repeating: realPath(other), count: 4))
    }

    /// `coffer get` through the agent, of an item another program owns, not on a terminal (a
    /// script): exit status 13 and the typed error naming coffer's executable and
    /// `coffer access grant`, even with $COFFER_PASSPHRASE set, which is no confirmation.
    func testCofferGetOfAnotherProgramsItemIsRefusedWithExit13WhenNotOnATerminal() throws {
        try startAgentAndUnlock(answering: "deny")
        try store(helper, "ada", "s3cret")
        let coffer = realPath(BuiltProducts.executable("coffer").path)
        for environment in [noCredential, [:]] {
            let get = try self.coffer(["get", service, "ada"], environment: environment)
            XCTAssertEqual(get.exitStatus, .accessDenied, get.stderrText)
            XCTAssertEqual(get.stdout, Data())
            assertRefusal(get.stderrText, "coffer: ", program: coffer)
        }
        XCTAssertEqual(try log("ada").map(\.program).last, coffer, "the agent knew coffer for itself")
        let list = try self.coffer(["list"], environment: noCredential)
        XCTAssertEqual(list.status, 0, "under confirm every program sees the names: \(list.stderrText)")
        XCTAssertTrue(list.stdoutText.contains("ada"), list.stdoutText)
    }

    /// On a terminal, `coffer get` of an item the agent keeps from it asks for the vault's
    /// passphrase (as sudo asks again), opens the vault itself and reads the item; the log says
    /// so (front door `cli`, decision `once`). A wrong passphrase reads nothing.
    func testOnATerminalTheVaultsPassphraseConfirmsARead() throws {
        try startAgentAndUnlock(answering: "deny")
        try store(helper, "ada", "s3cret")
        let confirmed = try onTerminal([["Passphrase: ", passphrase]], ["get", service, "ada"])
        XCTAssertEqual(confirmed.status, 0, confirmed.stdoutText)
        XCTAssertTrue(confirmed.stdoutText.contains("The vault's access policy keeps \(realPath(BuiltProducts.executable("coffer").path))"), confirmed.stdoutText)
        XCTAssertTrue(confirmed.stdoutText.contains("s3cret"), confirmed.stdoutText)
        XCTAssertFalse(confirmed.stdoutText.contains(passphrase), "no echo")
        let cli = try openVault().auditLog().first
        XCTAssertEqual(cli?.frontDoor, .cli)
        XCTAssertEqual(cli?.decision, .once)
        XCTAssertEqual(cli?.action, .read)
        XCTAssertEqual(cli?.item?.account, "ada")

        let wrong = try onTerminal([["Passphrase: ", "not the passphrase"]], ["get", service, "ada"])
        XCTAssertEqual(ExitStatus(rawValue: wrong.status), .locked, wrong.stdoutText)
        XCTAssertFalse(wrong.stdoutText.contains("s3cret"))
    }

    /// Runs `coffer arguments…` on a pseudo-terminal without $COFFER_PASSPHRASE, answering its
    /// prompts as `steps` says (Fixtures/answer_on_terminal.py); stdout is what the terminal showed.
    private func onTerminal(_ steps: [[String]], _ arguments: [String]) throws -> ChildProcess.Output {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/answer_on_terminal.py")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        return try ChildProcess.run(
            "/usr/bin/python3", [script.path, json, BuiltProducts.executable("coffer").path] + arguments,
            environment: baseEnvironment.merging(noCredential) { $1 }, timeout: .seconds(60))
    }

    // MARK: - Strict and open

    /// Under `strict` another program is refused without the prompter running; under `open`
    /// every program reads, asked about by nobody. Both decisions are logged.
    func testStrictRefusesWithoutAskingAndOpenLetsEveryProgramRead() throws {
        try startAgentAndUnlock(answering: "once")
        let other = try copyOfHelper()
        try store(helper, "ada", "s3cret")
        try setPolicy(.strict)
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).status, 13)
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret", "the owner still reads")
        try setPolicy(.open)
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        XCTAssertEqual(asked, [], "nobody was asked")
        XCTAssertEqual(try log("ada").map(\.decision), ["owner", "denied", "owner", "open"])
    }

    /// A program put on the access list with `coffer access grant --pin` (its SHA-256 recorded)
    /// reads under `strict`; once its executable is modified (one byte appended) it is refused.
    func testAModifiedExecutableIsRefusedWhenItsEntryIsPinned() throws {
        try startAgentAndUnlock(prompter: false)
        let other = try copyOfHelper()
        try store(helper, "ada", "s3cret")
        XCTAssertEqual(try coffer(["access", "policy", "strict"]).status, 0)
        let granted = try coffer(["access", "grant", service, "ada", other, "--pin"])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: other))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        XCTAssertEqual(try agent(other, "agent-get", [service, "ada"]).status, 13, "the modified file fails its pin")
        XCTAssertEqual(try log("ada").filter { $0.action == "read" }.map(\.decision), ["allowed", "denied"])
    }

    /// A sandboxed program is a program of its own: the helper run in a snap's cgroup (as snapd
    /// runs a snap's apps) is refused the item the same helper stored outside, while the helper
    /// outside reads it. No snapd runs here: the test makes the cgroup snapd would.
    func testTheSameExecutableInASnapIsAnotherProgram() throws {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        guard let hierarchy = mounts.split(separator: "\n").map({ $0.split(separator: " ") }).first(where: { $0.count > 2 && $0[2] == "cgroup2" })?[1] else {
            throw MissingPrerequisite.error("no cgroup2 file system is mounted")
        }
        let group = "\(hierarchy)/snap.coffer-test.app-\(getpid()).scope"
        guard mkdir(group, 0o755) == 0 else {
            throw MissingPrerequisite.error("cannot make the cgroup \(group): \(String(cString: strerror(errno))) (root with a writable cgroup2 is needed)")
        }
        defer { rmdir(group) }
        try startAgentAndUnlock(prompter: false)
        try store(helper, "ada", "s3cret")
        let go = folder.file("go").path
        let script = "echo ready; while [ ! -e '\(go)' ]; do sleep 0.01; done; exec \"$@\""
        let snapped = try ChildProcess.start(
            "/bin/sh", ["-c", script, "sh", helper, "agent-get", agentSocket.path, realVault, service, "ada"], inputs: [0: Data()])
        XCTAssertTrue(snapped.waitForLine("ready", timeout: .seconds(10)))
        try "\(snapped.pid)".write(toFile: group + "/cgroup.procs", atomically: false, encoding: .utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: go, contents: Data()))
        let refused = try snapped.wait(timeout: .seconds(30))
        XCTAssertEqual(refused.status, 13, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("in snap:coffer-test"), refused.stderrText)
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret", "outside the snap it is the owner")
        XCTAssertEqual(try log("ada").map(\.decision), ["owner", "no-prompter", "owner"])
    }

    // MARK: - Listing and bulk removal

    /// Under `strict` a listing shows a program only the items it owns or is listed on; under
    /// `confirm` every item's name. Never a secret. One `list` entry a listing.
    func testAListingUnderStrictShowsOnlyTheCallersOwnItems() throws {
        try startAgentAndUnlock(prompter: false)
        let other = try copyOfHelper()
        try store(helper, "ada", "a")
        try store(other, "bob", "b")
        XCTAssertEqual(try agent(other, "agent-list").stdoutText, "ada\nbob\n", "confirm lists every name")
        try setPolicy(.strict)
        XCTAssertEqual(try agent(helper, "agent-list").stdoutText, "ada\n")
        XCTAssertEqual(try agent(other, "agent-list").stdoutText, "bob\n")
        let listings = try log().filter { $0.action == "list" }
        XCTAssertEqual(listings.map(\.decision), ["allowed", "allowed", "allowed"])
        XCTAssertEqual(listings.map(\.program), [realPath(other), realPath(helper), realPath(other)])
    }

    /// A removal by query under `confirm` removes only the caller's own items, asks nobody, and
    /// leaves the others, each logged as refused; when every selected item is another's, it is
    /// refused whole (exit 13). Under `open` it removes every one.
    func testARemovalByQueryRemovesOnlyWhatTheCallerMayUseWithoutAsking() throws {
        try startAgentAndUnlock(answering: "once")
        let other = try copyOfHelper()
        try store(helper, "ada", "a")
        try store(other, "bob", "b")
        XCTAssertEqual(try agent(helper, "agent-delete-all", [service]).stdoutText, "1\n")
        XCTAssertEqual(try agent(other, "agent-get", [service, "bob"]).stdoutText, "b", "another's item stays")
        XCTAssertEqual(try agent(helper, "agent-delete-all", [service]).status, 13, "nothing of its own to remove")
        XCTAssertEqual(asked, [], "nobody is asked about a bulk removal")
        XCTAssertEqual(try log("bob").map(\.decision), ["owner", "denied", "owner", "denied"])
        try setPolicy(.open)
        XCTAssertEqual(try agent(helper, "agent-delete-all", [service]).stdoutText, "1\n")
        XCTAssertEqual(try log("bob").last?.decision, "open")
    }

    // MARK: - Prompts and other clients

    /// A prompt holds up no other client: with more clients waiting on the prompter than the
    /// agent has request threads, the owner's read is answered at once. A client that hangs up
    /// while it is asked about ends its prompt (the prompter's process group is killed), and the
    /// refusal is logged.
    func testAPromptHoldsUpNoOtherClientAndEndsWhenItsClientLeaves() throws {
        try initVault()
        let started = folder.file("started")
        let prompter = "echo $$ >> '\(started.path)'; sleep 60; echo once"
        try startAgent(["--prompter", prompter])
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        try store(helper, "ada", "s3cret")
        let other = try copyOfHelper()
        let waiting = try (0..<3).map { _ in try ChildProcess.start(other, ["agent-get", agentSocket.path, realVault, service, "ada"]) }
        defer { waiting.forEach { $0.kill() } }
        var prompterPIDs: [pid_t] = []
        for _ in 0..<1000 where prompterPIDs.count < 3 {
            prompterPIDs = ((try? String(contentsOf: started, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
            usleep(10_000)
        }
        XCTAssertEqual(prompterPIDs.count, 3, "three prompts at once")
        let clock = ContinuousClock.now
        XCTAssertEqual(try agent(helper, "agent-get", [service, "ada"]).stdoutText, "s3cret")
        XCTAssertLessThan(ContinuousClock.now - clock, .milliseconds(TestTiming.limit(milliseconds: 10_000)), "not held up by the prompts")

        for client in waiting { client.kill(SIGKILL) }
        var gone = false
        for _ in 0..<2000 where !gone {
            gone = prompterPIDs.allSatisfy { kill($0, 0) != 0 && errno == ESRCH }
            if !gone { usleep(10_000) }
        }
        XCTAssertTrue(gone, "the prompters ended with their clients, long before their 60 s sleep")
        XCTAssertEqual(try log("ada").map(\.decision).filter { $0 == "denied" }.count, 3)
    }
}
