import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent start --secret-service`: the agent owns `org.freedesktop.secrets` on a private
/// bus, serves the vault `coffer` uses by default as the login collection, refuses a name another
/// process owns (or takes it over with `--replace`), and the shipped activation file and user
/// unit start it (docs/secret-service.md, "Setting it up").
final class SecretServiceAgentTests: CLITestCase {
    private func secretTool(_ bus: PrivateBus, _ arguments: [String], stdin: Data = Data()) throws -> ChildProcess.Output {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool") else {
            throw MissingPrerequisite.error("secret-tool is missing (Debian: libsecret-tools)")
        }
        return try ChildProcess.run("/usr/bin/secret-tool", arguments, environment: bus.clientEnvironment, stdin: stdin, timeout: .seconds(30))
    }

    private func stopAgent() {
        _ = try? coffer(["agent", "stop"])
    }

    /// Started in the background, the agent serves the default vault once `coffer unlock` hands
    /// it the passphrase: what secret-tool stores, `coffer get` reads, and the reverse. Before
    /// the unlock, the collection is locked and a lookup finds nothing; `agent stop` releases
    /// the name.
    func testTheAgentServesTheDefaultVault() throws {
        let bus = try PrivateBus()
        try initVault()
        XCTAssertEqual(try coffer(["set", "cli.example", "ada"], stdin: Data("from cli".utf8)).status, 0)
        let start = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(start.status, 0, start.stderrText)
        defer { stopAgent() }
        XCTAssertTrue(try bus.hasOwner("org.freedesktop.secrets"))
        XCTAssertNotEqual(try secretTool(bus, ["lookup", "service", "cli.example", "username", "ada"]).status, 0, "locked: nothing found")

        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "cli.example", "username", "ada"]).stdoutText, "from cli")
        XCTAssertEqual(try secretTool(bus, ["store", "--label=L", "service", "tool.example", "username", "bob"], stdin: Data("from tool".utf8)).status, 0)
        XCTAssertEqual(try coffer(["get", "tool.example", "bob"]).stdoutText, "from tool")
        XCTAssertEqual(try coffer(["get", "tool.example", "bob"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "from tool", "through the agent")

        XCTAssertEqual(try coffer(["agent", "stop"]).status, 0)
        XCTAssertFalse(try bus.hasOwner("org.freedesktop.secrets"))
    }

    /// `--hold` beside `--secret-service`: a vault opened at start with no person (here through
    /// its key file, named with `--unlock`) is an unlocked collection at once. After `coffer
    /// lock` forgets it, a client's `Unlock` (python-secretstorage) runs the `--prompter` command,
    /// and the passphrase it prints unlocks the collection again.
    func testAVaultHeldFromTheStartIsServedAndThePrompterUnlocksItAfterALock() throws {
        let bus = try PrivateBus()
        try initVault()
        XCTAssertEqual(try coffer(["set", "held.example", "ada"], stdin: Data("held".utf8)).status, 0)
        let key = folder.file("vault.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key.path]).status, 0)
        let start = try coffer(
            ["--unlock", "keyfile", "agent", "start", "--secret-service", "--prompter", "printf '%s\\n' '\(passphrase)'", "--hold", vault.path],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_KEYFILE": key.path, "COFFER_PASSPHRASE": nil])
        XCTAssertEqual(start.status, 0, start.stderrText)
        defer { stopAgent() }
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "held.example", "username", "ada"]).stdoutText, "held", "held from the start: no unlock needed")

        XCTAssertEqual(try coffer(["lock"]).status, 0)
        XCTAssertNotEqual(try secretTool(bus, ["lookup", "service", "held.example", "username", "ada"]).status, 0, "locked: nothing found")
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            login = secretstorage.get_default_collection(connection)
            print(login.is_locked(), login.unlock(), login.is_locked())
            """
        let unlocked = try ChildProcess.run("/usr/bin/python3", ["-c", script], environment: bus.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(unlocked.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "True False False", "locked, not dismissed, then unlocked: \(unlocked.stderrText)")
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "held.example", "username", "ada"]).stdoutText, "held")
    }

    /// Another owner of the name, here gnome-keyring as a desktop runs it: the agent refuses to
    /// start, saying who owns the name and how to take it over, and leaves no agent behind; with
    /// `--replace` too, since gnome-keyring does not let its name be replaced.
    func testANameTakenIsRefusedClearly() throws {
        let bus = try PrivateBus()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-keyring-daemon") else {
            throw MissingPrerequisite.error("gnome-keyring is missing (Debian: gnome-keyring)")
        }
        try GnomeKeyring.start(on: bus, home: folder.file("keyring-home"))
        try initVault()
        let start = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(start.exitStatus, .unavailable, start.stderrText)
        XCTAssertTrue(start.stderrText.contains("gnome-keyring-d"), start.stderrText)
        XCTAssertTrue(start.stderrText.contains("already owns org.freedesktop.secrets; stop it, or pass --replace"), start.stderrText)
        XCTAssertNotEqual(try coffer(["agent", "status"]).status, 0, "no agent was left running")

        let foreground = try coffer(["agent", "start", "--foreground", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(foreground.exitStatus, .unavailable, foreground.stderrText)
        XCTAssertTrue(foreground.stderrText.contains("already owns org.freedesktop.secrets"), foreground.stderrText)

        // gnome-keyring does not let its name be replaced: --replace says so.
        let replace = try coffer(["agent", "start", "--secret-service", "--replace"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(replace.exitStatus, .unavailable, replace.stderrText)
        XCTAssertTrue(replace.stderrText.contains("owns org.freedesktop.secrets and does not let it be replaced; stop it first"), replace.stderrText)
        XCTAssertTrue(try bus.hasOwner("org.freedesktop.secrets"), "gnome-keyring keeps the name")
    }

    /// `--replace` takes the name from an owner that allows it (another Coffer agent, which
    /// always does); the agent that lost it goes on serving the CLI.
    func testReplaceTakesTheNameOver() throws {
        let bus = try PrivateBus()
        try initVault()
        let otherSocket = folder.file("other.sock")
        let first = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_AGENT_SOCKET": otherSocket.path])
        XCTAssertEqual(first.status, 0, first.stderrText)
        defer { _ = try? coffer(["agent", "stop"], environment: ["COFFER_AGENT_SOCKET": otherSocket.path]) }
        let refused = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(refused.exitStatus, .unavailable, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("coffer"), refused.stderrText)

        let second = try coffer(["agent", "start", "--secret-service", "--replace"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(second.status, 0, second.stderrText)
        defer { stopAgent() }
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["store", "--label=L", "service", "s", "username", "u"], stdin: Data("v".utf8)).status, 0)
        XCTAssertEqual(try coffer(["agent", "status"], environment: ["COFFER_AGENT_SOCKET": otherSocket.path]).status, 0, "the first agent still serves the CLI")
    }

    /// A container or CI job (`dbus-run-session`): the shipped activation file, installed in the
    /// bus's service folder, makes the first client start Coffer; `coffer unlock` then opens the
    /// login collection, and the client finds what it stores.
    func testActivationFileStartsTheAgent() throws {
        let services = folder.file("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: false)
        let shipped = try String(contentsOf: packageRoot.appendingPathComponent("contrib/dbus/org.freedesktop.secrets.service"), encoding: .utf8)
        XCTAssertTrue(shipped.contains("\nName=org.freedesktop.secrets\n"))
        XCTAssertTrue(shipped.contains("\nExec=/usr/local/bin/coffer agent start --foreground --secret-service\n"))
        XCTAssertTrue(shipped.contains("\nSystemdService=coffer-secret-service.service\n"))
        // The bus starts services with its own environment: a wrapper gives the test's vault and socket.
        let wrapper = folder.file("coffer-for-bus")
        try """
            #!/bin/sh
            export COFFER_VAULT='\(vault.path)' COFFER_AGENT_SOCKET='\(agentSocket.path)' XDG_DATA_HOME='\(folder.file("xdg").path)'
            exec '\(BuiltProducts.executable("coffer").path)' "$@"
            """.write(to: wrapper, atomically: false, encoding: .utf8)
        chmod(wrapper.path, 0o700)
        try shipped.replacingOccurrences(of: "/usr/local/bin/coffer", with: wrapper.path)
            .write(to: services.appendingPathComponent("org.freedesktop.secrets.service"), atomically: false, encoding: .utf8)
        let bus = try PrivateBus(serviceFolder: services)
        try initVault()
        defer { stopAgent() }

        XCTAssertNotEqual(try secretTool(bus, ["lookup", "service", "s", "username", "u"]).status, 0, "activated, and locked")
        XCTAssertTrue(try bus.hasOwner("org.freedesktop.secrets"), "the lookup started Coffer")
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["store", "--label=L", "service", "s", "username", "u"], stdin: Data("v".utf8)).status, 0)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "s", "username", "u"]).stdoutText, "v")
    }

    /// The user unit (contrib/systemd/coffer-secret-service.service) passes `systemd-analyze
    /// verify`, waits for the bus name, and replaces the plain agent's units.
    func testTheUserUnitVerifies() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw MissingPrerequisite.error("systemd-analyze is missing (Debian package systemd; make test installs it)")
        }
        let text = try String(contentsOf: packageRoot.appendingPathComponent("contrib/systemd/coffer-secret-service.service"), encoding: .utf8)
        for line in ["Type=dbus", "BusName=org.freedesktop.secrets", "ExecStart=/usr/local/bin/coffer agent start --foreground --secret-service",
                     "Conflicts=coffer-agent.service coffer-agent.socket", "Alias=dbus-org.freedesktop.secrets.service"] {
            XCTAssertTrue(text.contains("\n" + line + "\n"), line)
        }
        let copies = folder.file("units")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: false)
        let unit = copies.appendingPathComponent("coffer-secret-service.service")
        try text.replacingOccurrences(of: "/usr/local/bin/coffer", with: BuiltProducts.executable("coffer").path).write(to: unit, atomically: false, encoding: .utf8)
        let runtime = folder.file("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let verify = try ChildProcess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", "--user", unit.path], environment: ["XDG_RUNTIME_DIR": runtime.path])
        XCTAssertEqual(verify.status, 0, verify.stderrText)
    }
}

/// gnome-keyring-daemon on a private bus, unlocked, as scripts/with-secret-service.sh starts it.
/// It exits when the bus goes away.
enum GnomeKeyring {
    static func start(on bus: PrivateBus, home: URL) throws {
        for sub in ["", "data", "run"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let started = try ChildProcess.run(
            "/usr/bin/gnome-keyring-daemon", ["--unlock", "--components=secrets"],
            environment: bus.clientEnvironment.merging([
                "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.appendingPathComponent("run").path,
            ]) { $1 },
            stdin: Data("coffer-test-keyring".utf8), timeout: .seconds(30))
        guard started.status == 0 else { throw MissingPrerequisite.error("gnome-keyring-daemon did not start: \(started.stderrText)") }
        for _ in 0..<100 where !(try bus.hasOwner("org.freedesktop.secrets")) { usleep(50_000) }
    }
}
