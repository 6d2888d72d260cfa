import Coffer
import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// Coffer's own tools make themselves not dumpable, which hides their executable from an agent
/// without `CAP_SYS_PTRACE`; so they have the agent identify them first, on a connection they keep
/// (docs/security.md, "Coffer's own tools"). Here the agent and `coffer` run as uid 65534, so
/// the agent has no privilege to look into a process that is not dumpable.
final class OwnToolsIdentityTests: CLITestCase {
    /// An unprivileged agent knows `coffer` by its real executable: an item `coffer set` writes
    /// through it is owned by `coffer`'s real path, and `coffer get` reads it back under
    /// `confirm` with no prompter, which refuses any program it cannot tell. Before, the agent
    /// could not identify `coffer`: the item had no owner and the read was refused.
    func testAnUnprivilegedAgentKnowsCofferByItsRealExecutable() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run the agent and coffer as uid 65534") }
        let home = folder.file("nobody")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        chown(home.path, 65534, 65534)
        chmod(home.path, 0o700)
        chmod(folder.url.path, 0o755)
        let coffer = try BuiltProducts.executableForOtherUsers("coffer").path
        let vaultPath = home.appendingPathComponent("nobody.vault").path
        let environment: [String: String?] = [
            "COFFER_AGENT_SOCKET": home.appendingPathComponent("agent.sock").path, "COFFER_VAULT": vaultPath,
            "COFFER_PASSPHRASE": passphrase, "HOME": "/nonexistent", "XDG_DATA_HOME": nil, "XDG_RUNTIME_DIR": nil,
        ]
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        func run(_ arguments: [String], stdin: Data = Data(), passphrase: Bool = true) throws -> ChildProcess.Output {
            try ChildProcess.run(
                "/usr/bin/setpriv", asNobody + [coffer] + arguments,
                environment: environment.merging(passphrase ? [:] : ["COFFER_PASSPHRASE": nil]) { $1 }, stdin: stdin)
        }
        XCTAssertEqual(try run(["init", "--kdf", "interactive"]).status, 0)
        let agent = try ChildProcess.start("/usr/bin/setpriv", asNobody + [coffer, "agent", "start", "--foreground"], environment: environment)
        defer { agent.stop() }
        for _ in 0..<500 {
            if try run(["agent", "status"]).status == 0 { break }
            usleep(10_000)
        }
        let unlocked = try run(["unlock"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)

        let set = try run(["set", "mail", "ada"], stdin: Data("s3cret".utf8), passphrase: false)
        XCTAssertEqual(set.status, 0, set.stderrText)
        let owner = try ChildProcess.run(
            "/usr/bin/setpriv", asNobody + [BuiltProducts.executableForOtherUsers("coffer-test-helper").path, "owner", vaultPath, "mail", "ada"],
            environment: environment)
        XCTAssertEqual(owner.stdoutText, URL(fileURLWithPath: coffer).resolvingSymlinksInPath().path + "\n", owner.stderrText)
        let get = try run(["get", "mail", "ada"], passphrase: false)
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "s3cret")
    }

    /// The connection a command keeps to the agent never takes a descriptor number its command
    /// line names: with descriptor 3 closed, `--passphrase-fd 3` is "not open", as without an
    /// agent, and never reads the agent's socket (which a new socket would be given as the
    /// lowest free number).
    func testTheKeptConnectionNeverTakesADescriptorTheCommandLineNames() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("first".utf8)).status, 0)
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        assertFailure(
            try shell(#"unset COFFER_PASSPHRASE; "$COFFER" --passphrase-fd 3 get mail ada 3<&-"#), status: .usage,
            message: "file descriptor 3 is not open")
        XCTAssertEqual(try shell(#"unset COFFER_PASSPHRASE; "$COFFER" get mail ada 3<&-"#).stdoutText, "first", "served by the agent")
    }
}
