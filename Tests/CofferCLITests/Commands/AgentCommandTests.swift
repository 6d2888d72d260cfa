import CofferAgent
@_spi(Benchmarks) import Coffer
import CofferAgentWire
import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent`, `unlock` and `lock` with the real binary: a passphrase vault unlocked once
/// serves later commands with no credential, until it is locked, times out, or is rotated elsewhere.
final class AgentCommandTests: CLITestCase {
    private let noCredential: [String: String?] = ["COFFER_PASSPHRASE": nil]

    func testAnUnlockedPassphraseVaultServesGetSetListAndDeleteWithNoCredential() throws {
        try initVaultWithItem()
        try startAgent()
        let unlocked = try coffer(["unlock", "--for", "10m"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
        XCTAssertTrue(unlocked.stdoutText.hasPrefix("the agent holds "), unlocked.stdoutText)

        let get = try coffer(["get", "mail", "ada"], environment: noCredential)
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "first")
        XCTAssertEqual(try coffer(["set", "mail", "bob"], stdin: Data("second".utf8), environment: noCredential).status, 0)
        let list = try coffer(["list"], environment: noCredential)
        XCTAssertEqual(list.status, 0, list.stderrText)
        XCTAssertTrue(list.stdoutText.contains("bob") && list.stdoutText.contains("ada"), list.stdoutText)
        XCTAssertEqual(try coffer(["delete", "mail", "ada"], environment: noCredential).status, 0)

        // coffer-auth's commands read their sessions through the agent too: "not logged in"
        // (4), where without the agent they would stop at "no passphrase" (2).
        let status = try coffer(["status", "--profile", "work"], environment: noCredential)
        XCTAssertEqual(status.exitStatus, .loginNeeded, status.stderrText)

        let direct = try coffer(["get", "mail", "bob", "--no-agent"])
        XCTAssertEqual(direct.stdoutText, "second", "the agent wrote the vault file itself")
        assertFailure(try coffer(["get", "mail", "bob", "--no-agent"], environment: noCredential), status: .locked,
                      message: "no passphrase: use --passphrase-fd, $COFFER_PASSPHRASE or a terminal")
    }

    /// A listing larger than one reply (4 MiB of text, 4 MiB of records) is printed whole
    /// through the agent: the thin `coffer list`'s text request is refused as too large, and the
    /// full program it hands on to asks for the items page by page (docs/agent.md, section 4).
    func testAListingLargerThanOneReplyIsPrintedWhole() throws {
        try initVault()
        var options = ItemOptions()
        options.label = String(repeating: "l", count: 4_000)
        let accounts = (0..<1_100).map { String(format: "user%04d", $0) }
        let entries: [(id: ItemID, secret: Data, options: ItemOptions)] = accounts.map { account in
            (id: ItemID.genericPassword(service: "big", account: account), secret: Data("s".utf8), options: options)
        }
        try Vault.open(at: vault, unlock: .passphrase(passphrase)).set(entries)
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "10m"]).status, 0)
        let list = try coffer(["list"], environment: noCredential)
        XCTAssertEqual(list.status, 0, list.stderrText)
        XCTAssertGreaterThan(list.stdout.count, AgentMessage.maxBodyBytes)
        let listed = list.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[2]) }
        XCTAssertEqual(listed.count, accounts.count)
        XCTAssertTrue(listed == accounts, "the listing is not every item once, in order")
    }

    func testLockMakesTheNextCommandAskForACredentialAgain() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).status, 0)
        XCTAssertEqual(try coffer(["lock"]).stdoutText, "the agent no longer holds \(vault.resolvingSymlinksInPath().path)\n")
        assertFailure(try coffer(["get", "mail", "ada"], environment: noCredential), status: .locked,
                      message: "no passphrase: use --passphrase-fd, $COFFER_PASSPHRASE or a terminal")

        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try coffer(["lock", "--all"]).stdoutText, "the agent holds no vault now\n")
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).exitStatus, .locked)
    }

    func testTheLifetimeAndTheIdleTimeoutEnd() throws {
        try initVaultWithItem()
        try startAgent(["--idle-timeout", "2s"])
        XCTAssertEqual(try coffer(["unlock", "--for", "1s"]).status, 0)
        usleep(1_500_000)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).exitStatus, .locked, "past --for")

        XCTAssertEqual(try coffer(["unlock", "--for", "1h"]).status, 0)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).status, 0)
        usleep(3_000_000)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).exitStatus, .locked, "unused for the idle timeout")
        XCTAssertEqual(try coffer(["unlock", "--for", "8d"]).stderrText, "coffer: --for takes at most 7 days\n")
    }

    func testARotationElsewhereMakesTheAgentForgetTheVault() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        let rotated = try coffer(["rotate-key", "--no-agent"])
        XCTAssertEqual(rotated.status, 0, rotated.stderrText)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).exitStatus, .locked, "the agent's key is stale")
        let status = try JSONSerialization.jsonObject(with: try coffer(["agent", "status", "--json"]).stdout) as? [String: Any]
        XCTAssertEqual((status?["vaults"] as? [Any])?.count, 0, "forgotten, not just refused")
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).stdoutText, "first", "the new key opens it directly")
    }

    func testAKilledAgentMakesCommandsFallBackWithANoteAndAStartReplacesItsSocket() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        agent?.kill(SIGKILL)
        _ = try agent?.wait(timeout: .seconds(5))
        XCTAssertTrue(FileManager.default.fileExists(atPath: agentSocket.path), "kill -9 leaves the socket file")

        let get = try coffer(["get", "mail", "ada"])
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "first")
        XCTAssertEqual(get.stderrText, "coffer: note: no agent answers at \(agentSocket.path); unlocking the vault here instead\n")
        XCTAssertLessThan(get.duration, .seconds(20), "never a hang")
        XCTAssertEqual(try coffer(["unlock"]).stderrText, "coffer: no agent runs: start one with `coffer agent start`\n")

        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0, "the new agent took over the stale socket")
    }

    func testStartDetachesStatusReportsAndStopEnds() throws {
        try initVault()
        let started = try coffer(["agent", "start", "--idle-timeout", "5m"])
        XCTAssertEqual(started.status, 0, started.stderrText)
        defer { _ = try? coffer(["agent", "stop"]) }
        XCTAssertEqual(try coffer(["agent", "start"]).exitStatus, .usage, "a second agent is refused")
        XCTAssertEqual(try coffer(["unlock", "--for", "2m"]).status, 0)

        let status = try coffer(["agent", "status", "--json"])
        XCTAssertEqual(status.status, 0)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        XCTAssertEqual(report["running"] as? Bool, true)
        XCTAssertEqual(report["socket"] as? String, agentSocket.path)
        XCTAssertNotNil(report["pid"] as? Int)
        let vaults = try XCTUnwrap(report["vaults"] as? [[String: Any]])
        XCTAssertEqual(vaults.first?["path"] as? String, vault.resolvingSymlinksInPath().path)
        for key in ["id", "unlockedAt", "expiresAt", "lastUse"] { XCTAssertNotNil(vaults.first?[key] as? String, key) }

        XCTAssertEqual(try coffer(["agent", "stop"]).stdoutText, "agent stopped\n")
        let stopped = try coffer(["agent", "status", "--json"])
        XCTAssertEqual(stopped.exitStatus, .notFound)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: stopped.stdout) as? [String: Any])?["running"] as? Bool, false)
    }

    func testAnAgentRefusesAnotherUser() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run the agent as nobody (uid 65534) and connect as root") }
        let folder = TemporaryFolder()
        let agentFolder = folder.file("nobody")
        try FileManager.default.createDirectory(at: agentFolder, withIntermediateDirectories: false)
        chown(agentFolder.path, 65534, 65534)
        chmod(agentFolder.path, 0o700)
        chmod(folder.url.path, 0o755)
        let socket = agentFolder.appendingPathComponent("agent.sock").path
        let agent = try ChildProcess.start(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", try BuiltProducts.executableForOtherUsers("coffer").path, "agent", "start", "--foreground"],
            environment: ["COFFER_AGENT_SOCKET": socket, "HOME": "/nonexistent"])
        defer { agent.stop() }
        // A raw exchange: AgentClient itself would refuse this agent (another uid) before sending.
        var reply: AgentMessage?
        for _ in 0..<500 where reply == nil {
            if let descriptor = try? AgentSocket.connect(path: socket) {
                if AgentSocket.write(AgentRequest.ping.message, to: descriptor) { reply = AgentSocket.read(from: descriptor) }
                close(descriptor)
            }
            if reply == nil { usleep(10_000) }
        }
        guard case .failure(let error)? = try reply.map({ try AgentReply($0, to: .ping) }) else {
            return XCTFail("root was served: \(String(describing: reply))")
        }
        XCTAssertEqual(error, .invalidArgument(reason: "this agent serves only its own user"))
        var info = stat()
        XCTAssertEqual(stat("/proc/\(agent.pid)/environ", &info), 0)
        XCTAssertEqual(info.st_uid, 0, "the agent (uid 65534) is not dumpable: Linux gives its /proc files to root")
    }

    /// `unlock` takes the credential as every command does: a descriptor or a key file too.
    func testUnlockTakesAPassphraseDescriptorOrAKeyFile() throws {
        try initVaultWithItem()
        let key = folder.file("unlock.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key.path]).status, 0)
        try startAgent()
        let byDescriptor = try coffer(["unlock", "--passphrase-fd", "3"], inputs: [3: Data(passphrase.utf8)], environment: noCredential)
        XCTAssertEqual(byDescriptor.status, 0, byDescriptor.stderrText)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).stdoutText, "first")
        XCTAssertEqual(try coffer(["lock"]).status, 0)
        let byKeyFile = try coffer(["unlock", "--keyfile", key.path], environment: noCredential)
        XCTAssertEqual(byKeyFile.status, 0, byKeyFile.stderrText)
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: noCredential).stdoutText, "first")
    }

    /// Without $COFFER_AGENT_SOCKET the socket is $XDG_RUNTIME_DIR/coffer/agent.sock, in a
    /// folder created 0700, else coffer/run/agent.sock in $XDG_STATE_HOME or ~/.local/state
    /// (before: /tmp/coffer-<uid>/agent.sock). A path too long for a Unix socket is a clear error.
    func testTheDefaultSocketPath() throws {
        let runtime = folder.file("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
        chmod(runtime.path, 0o700)
        let home = folder.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        func status(_ environment: [String: String?]) throws -> ChildProcess.Output {
            try coffer(["agent", "status", "--json"], environment: environment.merging(["COFFER_AGENT_SOCKET": nil, "HOME": home.path]) { $1 })
        }
        func socket(_ environment: [String: String?]) throws -> String? {
            (try JSONSerialization.jsonObject(with: try status(environment).stdout) as? [String: Any])?["socket"] as? String
        }
        XCTAssertEqual(try socket(["XDG_RUNTIME_DIR": runtime.path]), runtime.path + "/coffer/agent.sock")
        let mode = try FileManager.default.attributesOfItem(atPath: runtime.path + "/coffer")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
        XCTAssertEqual(try socket(["XDG_RUNTIME_DIR": nil, "XDG_STATE_HOME": nil]), home.path + "/.local/state/coffer/run/agent.sock")
        let state = folder.file("state").path
        XCTAssertEqual(try socket(["XDG_RUNTIME_DIR": nil, "XDG_STATE_HOME": state]), state + "/coffer/run/agent.sock")

        let long = folder.file(String(repeating: "r", count: 100))
        try FileManager.default.createDirectory(at: long, withIntermediateDirectories: false)
        chmod(long.path, 0o700)
        let socketPath = long.path + "/coffer/agent.sock"
        assertFailure(try status(["XDG_RUNTIME_DIR": long.path]), status: .usage, message: """
            invalid argument: the agent's socket path \(socketPath) is \(socketPath.utf8.count) bytes, and a Unix socket's is at most 107: \
            set $COFFER_AGENT_SOCKET (or $XDG_RUNTIME_DIR) to a shorter one
            """)
    }

    /// The agent keeps no passphrase from the shell that started it: the detached agent is
    /// started without $COFFER_PASSPHRASE, and a foreground one removes it and zeroes its text,
    /// so /proc/<pid>/environ shows it in neither. Before, both showed it.
    func testTheAgentKeepsNoPassphraseInItsEnvironment() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to read a non-dumpable process's /proc/<pid>/environ") }
        // Both started with COFFER_PASSPHRASE set, as every command here is (CLITestCase).
        let detachedSocket: [String: String?] = ["COFFER_AGENT_SOCKET": folder.file("detached.sock").path]
        let started = try coffer(["agent", "start"], environment: detachedSocket)
        XCTAssertEqual(started.status, 0, started.stderrText)
        defer { _ = try? coffer(["agent", "stop"], environment: detachedSocket) }
        let detached = try XCTUnwrap(started.stdoutText.firstMatch(of: /pid (\d+)/).flatMap { Int32($0.1) })
        try startAgent()
        let foreground = try XCTUnwrap(agent?.pid)
        for pid in [detached, foreground] {
            let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
            XCTAssertNotNil(environ.range(of: Data("COFFER_VAULT=".utf8)), "the environment was read")
            XCTAssertNil(environ.range(of: Data("COFFER_PASSPHRASE".utf8)), "pid \(pid)")
            XCTAssertNil(environ.range(of: Data(passphrase.utf8)), "pid \(pid)")
        }
    }

    /// A stopped (SIGSTOP) agent is given up on within seconds: the command notes it and
    /// unlocks the vault itself. Before, it waited the full 30 s exchange timeout.
    func testAFrozenAgentMakesCommandsFallBackWithinSeconds() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        let frozen = try XCTUnwrap(agent)
        frozen.kill(SIGSTOP)
        defer { frozen.kill(SIGCONT) }
        let started = ContinuousClock.now
        let get = try coffer(["get", "mail", "ada"])
        let waited = ContinuousClock.now - started
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "first")
        XCTAssertTrue(get.stderrText.hasPrefix("coffer: note: the agent did not answer"), get.stderrText)
        XCTAssertLessThan(waited, .seconds(15), "given up on well before the 30 s exchange timeout")
    }

    func testNoCommandStartsAnAgent() throws {
        try initVaultWithItem()
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).status, 0)
        XCTAssertEqual(try coffer(["list"]).status, 0)
        XCTAssertEqual(try coffer(["agent", "status"]).exitStatus, .notFound)
        XCTAssertFalse(FileManager.default.fileExists(atPath: agentSocket.path), "no agent was started")
        assertFailure(try coffer(["unlock"]), status: .unavailable, message: "no agent runs: start one with `coffer agent start`")
    }

    /// The socket's folder is checked as a vault folder is, by the agent and by every client.
    func testASocketFolderOthersCanEnterIsRefused() throws {
        try initVault()
        let open = folder.file("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        let socket = ["COFFER_AGENT_SOCKET": open.appendingPathComponent("agent.sock").path]
        let start = try coffer(["agent", "start", "--foreground"], environment: socket)
        XCTAssertEqual(start.exitStatus, .insecurePermissions, start.stderrText)
        XCTAssertTrue(start.stderrText.contains("mode 777 lets others in; expected 700"), start.stderrText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: open.appendingPathComponent("agent.sock").path))
        let unlock = try coffer(["unlock"], environment: socket)
        XCTAssertEqual(unlock.exitStatus, .insecurePermissions, unlock.stderrText)
    }
}
