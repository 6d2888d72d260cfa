import CofferTestSupport
import Foundation
import XCTest

/// The shipped systemd user units (contrib/systemd): they pass `systemd-analyze verify`, put the
/// socket where coffer looks by default, and an agent started on a socket systemd-style
/// (`systemd-socket-activate`, LISTEN_FDS) serves the CLI.
final class AgentSystemdTests: CLITestCase {
    private let units = packageRoot.appendingPathComponent("contrib/systemd")

    private func requireTool(_ name: String) throws -> String {
        let path = "/usr/bin/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        throw MissingPrerequisite.error("\(name) is missing (Debian package systemd; make test installs it)")
    }

    func testTheUnitsVerifyAndListenWhereCofferLooks() throws {
        let analyze = try requireTool("systemd-analyze")
        let copies = folder.file("units")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: false)
        for name in ["coffer-agent.socket", "coffer-agent.service"] {
            var text = try String(contentsOf: units.appendingPathComponent(name), encoding: .utf8)
            XCTAssertTrue(name.hasSuffix(".socket") || text.contains("ExecStart=/usr/local/bin/coffer agent start --foreground\n"), text)
            text = text.replacingOccurrences(of: "/usr/local/bin/coffer", with: BuiltProducts.executable("coffer").path)
            try text.write(to: copies.appendingPathComponent(name), atomically: false, encoding: .utf8)
        }
        let runtime = folder.file("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let verify = try ChildProcess.run(
            URL(fileURLWithPath: analyze),
            ["verify", "--man=no", "--user"] + ["coffer-agent.socket", "coffer-agent.service"].map { copies.appendingPathComponent($0).path },
            environment: ["XDG_RUNTIME_DIR": runtime.path])
        XCTAssertEqual(verify.status, 0, verify.stderrText)

        let socket = try String(contentsOf: units.appendingPathComponent("coffer-agent.socket"), encoding: .utf8)
        for line in ["ListenStream=%t/coffer/agent.sock", "SocketMode=0600", "DirectoryMode=0700"] {
            XCTAssertTrue(socket.contains(line + "\n"), line)
        }
        let status = try coffer(["agent", "status", "--json"], environment: ["COFFER_AGENT_SOCKET": nil, "XDG_RUNTIME_DIR": runtime.path])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        XCTAssertEqual(report["socket"] as? String, runtime.path + "/coffer/agent.sock", "%t/coffer/agent.sock is coffer's default")
    }

    func testAnAgentOnASocketFromSystemdServesTheCLI() throws {
        try assertAnAgentOnASocketFromSystemdServesTheCLI(startupReportVariable: nil)
    }

    /// Systemd passes the socket as descriptor 3, the number `coffer agent start` gives its
    /// startup report pipe. A `COFFER_AGENT_STARTUP_FD=3` left in the environment (a user
    /// manager that imported it, say) must not make the agent close the socket it serves as if
    /// it were the report pipe.
    func testAStartupReportVariableInTheEnvironmentDoesNotCloseTheSocketFromSystemd() throws {
        try assertAnAgentOnASocketFromSystemdServesTheCLI(startupReportVariable: "3")
    }

    private func assertAnAgentOnASocketFromSystemdServesTheCLI(startupReportVariable: String?, line: UInt = #line) throws {
        let activate = try requireTool("systemd-socket-activate")
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("first".utf8)).status, 0)
        var environment = ProcessInfo.processInfo.environment.mapValues { Optional($0) }
        environment["COFFER_AGENT_SOCKET"] = agentSocket.path
        // systemd-socket-activate passes the program only the variables named with --setenv.
        let passed = startupReportVariable.map { ["--setenv=COFFER_AGENT_STARTUP_FD=\($0)"] } ?? []
        let agent = try ChildProcess.start(
            activate, passed + ["--listen=\(agentSocket.path)", BuiltProducts.executable("coffer").path, "agent", "start", "--foreground"],
            environment: environment)
        defer { agent.stop() }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: agentSocket.path) { usleep(10_000) }

        let status = try coffer(["agent", "status", "--json"])
        XCTAssertEqual(status.status, 0, "the first connection starts the agent on the passed socket: \(status.stderrText)", line: line)
        XCTAssertEqual(try coffer(["unlock"]).status, 0, line: line)
        let get = try coffer(["get", "mail", "ada"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(get.status, 0, get.stderrText, line: line)
        XCTAssertEqual(get.stdoutText, "first", line: line)
        XCTAssertEqual(try coffer(["agent", "stop"]).status, 0, line: line)
        XCTAssertEqual(try agent.wait(timeout: .seconds(10)).status, 0, "the agent exits when stopped", line: line)
    }
}
