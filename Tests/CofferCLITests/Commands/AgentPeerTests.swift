import CofferTestSupport
import Foundation
import XCTest

/// A client checks who serves the agent's socket before it sends anything (`SO_PEERCRED`).
final class AgentPeerTests: CLITestCase {
    /// A process of another user on the agent's socket (a stand-in that binds as root, drops to
    /// uid 65534 and answers like an agent: Fixtures/foreign_agent.py) is refused: `unlock` and
    /// `lock` fail with exit 77, `get` notes it and unlocks the vault itself, and the stand-in
    /// receives not one byte, so no passphrase. `unlock` connects once, after reading the
    /// passphrase. Before, it pinged first and then sent the passphrase to whoever answered.
    func testAnAgentOfAnotherUserIsRefusedBeforeAnyByteIsSent() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run the stand-in agent as uid 65534") }
        guard (try? ChildProcess.run("/usr/bin/python3", ["-c", "import socket"], timeout: .seconds(20)))?.status == 0 else {
            throw MissingPrerequisite.error("python3 is missing: run scripts/bootstrap.sh test")
        }
        try initVaultWithItem()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/foreign_agent.py")
        let foreign = try ChildProcess.start("/usr/bin/python3", [script.path, agentSocket.path])
        defer { foreign.stop() }
        XCTAssertEqual(try foreign.errorLines(1, timeout: .seconds(20)), ["ready"])

        let refusal = "the process at \(agentSocket.path) runs as uid 65534, not as this user: it is not your agent, and nothing was sent to it"
        assertFailure(try coffer(["unlock"]), status: .insecurePermissions, message: refusal)
        let get = try coffer(["get", "mail", "ada"])
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "first", "the vault was unlocked here instead")
        XCTAssertEqual(get.stderrText, "coffer: note: \(refusal); unlocking the vault here instead\n")
        assertFailure(try coffer(["lock"]), status: .insecurePermissions, message: refusal)

        XCTAssertEqual(try foreign.lines(3, timeout: .seconds(20)), Array(repeating: "connection 0", count: 3),
                       "one connection per command, and not a byte on any")
    }
}
