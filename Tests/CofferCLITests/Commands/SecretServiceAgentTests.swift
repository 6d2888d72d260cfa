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
        try openAccessPolicy()
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

    /// A password stored with the content type `text/plain; charset=utf8` (go-keyring's, so gh's
    /// and many Go tools') or `text/plain; charset=utf-8`, through a `plain` session as go-keyring
    /// stores it, reads back as `text/plain`, as gnome-keyring answers for the same item: so
    /// `secret-tool lookup` (libsecret reads a password only from exactly `text/plain`),
    /// python-keyring and `coffer get` all read it. A binary secret stays
    /// `application/octet-stream` (gnome-keyring answers `text/plain` for every secret). (A
    /// regression: the parameters came back, and secret-tool said "secret does not contain a
    /// textual password".)
    func testATextContentTypeWithParametersReadsAsAPassword() throws {
        let store = """
            import json, sys
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            ss = "org.freedesktop.secrets"
            service = DBusAddress("/org/freedesktop/secrets", bus_name=ss, interface="org.freedesktop.Secret.Service")
            default = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=ss, interface="org.freedesktop.Secret.Collection")
            c = open_dbus_connection(bus="SESSION")
            call = lambda address, method, signature=None, body=(): c.send_and_get_reply(new_method_call(address, method, signature, body)).body
            session = call(service, "OpenSession", "sv", ("plain", ("s", "")))[1]
            types = {}
            for name, attributes, secret, content_type in [
                    ("go", {"service": "gh:github.com", "username": "ada"}, b"gho_token", "text/plain; charset=utf8"),
                    ("utf-8", {"service": "tool.example", "username": "bob"}, b"t\\xc3\\xb6ken", "text/plain; charset=utf-8"),
                    ("binary", {"kind": "binary"}, b"\\x00\\xffbin", "application/octet-stream")]:
                properties = {"org.freedesktop.Secret.Item.Label": ("s", name), "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
                item = call(default, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", secret, content_type), True))[0]
                types[name] = call(DBusAddress(item, bus_name=ss, interface="org.freedesktop.Secret.Item"), "GetSecret", "o", (session,))[0][3]
            json.dump(types, sys.stdout)
            """
        let reference = try PrivateBus()
        try GnomeKeyring.start(on: reference, home: folder.file("keyring-home"))
        let gnome = try ChildProcess.run("/usr/bin/python3", ["-c", store], environment: reference.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(gnome.status, 0, gnome.stderrText)
        let gnomeTypes = try JSONSerialization.jsonObject(with: gnome.stdout) as? [String: String]
        XCTAssertEqual(gnomeTypes, ["go": "text/plain", "utf-8": "text/plain", "binary": "text/plain"])

        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        XCTAssertEqual(try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).status, 0)
        defer { stopAgent() }
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        let stored = try ChildProcess.run("/usr/bin/python3", ["-c", store], environment: bus.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let types = try JSONSerialization.jsonObject(with: stored.stdout) as? [String: String]
        XCTAssertEqual(types?["go"], gnomeTypes?["go"], "as gnome-keyring answers")
        XCTAssertEqual(types?["utf-8"], gnomeTypes?["utf-8"], "as gnome-keyring answers")
        XCTAssertEqual(types?["binary"], "application/octet-stream", "a binary secret stays binary")

        for (service, account, secret) in [("gh:github.com", "ada", "gho_token"), ("tool.example", "bob", "töken")] {
            let lookup = try secretTool(bus, ["lookup", "service", service, "username", account])
            XCTAssertEqual(lookup.status, 0, lookup.stderrText)
            XCTAssertEqual(lookup.stdoutText, secret, "secret-tool")
            let keyring = try ChildProcess.run(
                "/usr/bin/python3", ["-c", "import keyring.backends.SecretService as s; print(s.Keyring().get_password('\(service)', '\(account)'))"],
                environment: bus.clientEnvironment, timeout: .seconds(30))
            XCTAssertEqual(keyring.stdoutText, secret + "\n", "python-keyring: \(keyring.stderrText)")
            XCTAssertEqual(try coffer(["get", service, account], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, secret, "coffer get")
        }
    }

    /// `--hold` beside `--secret-service`: a vault opened at start with no person (here through
    /// its key file, named with `--unlock`) is an unlocked collection at once. After `coffer
    /// lock` forgets it, a client's `Unlock` (python-secretstorage) runs the `--prompter` command,
    /// and the passphrase it prints unlocks the collection again; so does a `secret-tool lookup`
    /// after another `coffer lock` (it unlocks what its search lists as locked).
    func testAVaultHeldFromTheStartIsServedAndThePrompterUnlocksItAfterALock() throws {
        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
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
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            login = secretstorage.get_default_collection(connection)
            print(login.is_locked(), login.unlock(), login.is_locked())
            """
        let unlocked = try ChildProcess.run("/usr/bin/python3", ["-c", script], environment: bus.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(unlocked.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "True False False", "locked, not dismissed, then unlocked: \(unlocked.stderrText)")
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "held.example", "username", "ada"]).stdoutText, "held")
        XCTAssertEqual(try coffer(["lock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "held.example", "username", "ada"]).stdoutText, "held", "through the prompter")
    }

    /// Another owner of the name, here gnome-keyring as a desktop runs it: the agent refuses to
    /// start, saying who owns the name and how to take it over, and leaves no agent behind; with
    /// `--replace` too, since gnome-keyring does not let its name be replaced.
    func testANameTakenIsRefusedClearly() throws {
        let bus = try PrivateBus()
        try GnomeKeyring.start(on: bus, home: folder.file("keyring-home"))
        try initVault()
        try openAccessPolicy()
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

    /// `--replace` takes the name from an owner that allows replacement (here a jeepney client
    /// that asked for it with `ALLOW_REPLACEMENT`), which the bus tells with `NameLost`. Coffer
    /// itself asks for the name as gnome-keyring does, without `ALLOW_REPLACEMENT`: another
    /// agent's `--replace` is refused, and the agent that owns the name keeps serving. (A
    /// regression: the agent let any process of the user take the name over silently.)
    func testReplaceTakesTheNameOnlyFromAnOwnerThatAllowsIt() throws {
        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        let holder = try ChildProcess.start("/usr/bin/python3", ["-c", Self.nameHolder], environment: bus.clientEnvironment, inputs: [0: nil])
        defer { holder.stop() }
        XCTAssertEqual(try holder.firstLine(timeout: .seconds(30)), "1", "the holder owns the name: \(holder.stop()?.stderrText ?? "")")
        let refused = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(refused.exitStatus, .unavailable, refused.stderrText)
        XCTAssertTrue(refused.stderrText.contains("python3"), refused.stderrText)

        let replacing = try coffer(["agent", "start", "--secret-service", "--replace"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertEqual(replacing.status, 0, replacing.stderrText)
        defer { stopAgent() }
        XCTAssertTrue(holder.waitForLine("NameLost", timeout: .seconds(10)), "the bus told the holder it lost the name")
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["store", "--label=L", "service", "s", "username", "u"], stdin: Data("v".utf8)).status, 0)

        let otherSocket = folder.file("other.sock")
        let second = try coffer(
            ["agent", "start", "--secret-service", "--replace"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_AGENT_SOCKET": otherSocket.path])
        XCTAssertEqual(second.exitStatus, .unavailable, second.stderrText)
        XCTAssertTrue(second.stderrText.contains("owns org.freedesktop.secrets and does not let it be replaced; stop it first"), second.stderrText)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "s", "username", "u"]).stdoutText, "v", "the first agent still serves")
    }

    /// Another connection of the same user asking for the name with `REPLACE_EXISTING` gets
    /// `EXISTS` (3), from Coffer as from gnome-keyring, and the owner stays. (A regression: Coffer
    /// allowed replacement, so any process could take every client's calls.)
    func testTheNameCannotBeTakenOver() throws {
        let request = """
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
            c = open_dbus_connection(bus="SESSION")
            print(c.send_and_get_reply(new_method_call(bus, "RequestName", "su", ("org.freedesktop.secrets", 2 | 4))).body[0])
            owner = c.send_and_get_reply(new_method_call(bus, "GetNameOwner", "s", ("org.freedesktop.secrets",))).body[0]
            print(c.send_and_get_reply(new_method_call(bus, "GetConnectionUnixProcessID", "s", (owner,))).body[0])
            """
        let reference = try PrivateBus()
        try GnomeKeyring.start(on: reference, home: folder.file("keyring-home"))
        let gnome = try ChildProcess.run("/usr/bin/python3", ["-c", request], environment: reference.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(gnome.stdoutText.split(separator: "\n").first, "3", "gnome-keyring keeps its name: \(gnome.stderrText)")

        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        XCTAssertEqual(try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).status, 0)
        defer { stopAgent() }
        guard case let pid? = try agentPID() else { return XCTFail("no agent") }
        let taken = try ChildProcess.run("/usr/bin/python3", ["-c", request], environment: bus.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(taken.stdoutText, "3\n\(pid)\n", taken.stderrText)
    }

    /// The agent ends with its session bus: started in the background inside `dbus-run-session`
    /// (the container recipe in docs/secret-service.md), or in the foreground as its command,
    /// no process of it remains 5 s after the bus has gone. (A regression: the background agent
    /// outlived its bus and ran on, serving nothing.)
    func testTheAgentEndsWithItsBus() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session") else {
            throw MissingPrerequisite.error("dbus-run-session is missing (Debian: dbus-bin)")
        }
        try initVault()
        try openAccessPolicy()
        let coffer = BuiltProducts.executable("coffer").path
        // dbus-run-session ends its bus when its command ends; the agent went to the background.
        let marker = UUID().uuidString
        let session = try ChildProcess.run(
            "/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", "\"$0\" agent start --secret-service", coffer],
            environment: baseEnvironment.merging(["COFFER_TEST_MARKER": marker]) { $1 }, timeout: .seconds(30))
        XCTAssertEqual(session.status, 0, session.stderrText)
        XCTAssertTrue(session.stdoutText.hasPrefix("agent started"), session.stdoutText)
        XCTAssertEqual(ProcessTable.waitUntilGone(environment: "COFFER_TEST_MARKER", equalTo: marker, timeout: .seconds(5)), [], "the background agent ended with its bus")

        // In the foreground: the bus daemon is killed under it.
        let foregroundMarker = UUID().uuidString
        let foreground = try ChildProcess.start(
            "/usr/bin/dbus-run-session", ["--", coffer, "agent", "start", "--secret-service", "--foreground"],
            environment: baseEnvironment.merging(["COFFER_TEST_MARKER": foregroundMarker]) { $1 })
        defer { foreground.stop() }
        var served = false
        for _ in 0..<500 {
            if try self.coffer(["agent", "status"]).status == 0 { served = true; break }
            usleep(10_000)
        }
        XCTAssertTrue(served, "the agent answers")
        let daemons = ProcessTable.processes(withEnvironment: "COFFER_TEST_MARKER", equalTo: foregroundMarker)
            .filter { ProcessTable.commandLine(of: $0).split(separator: " ").first?.hasSuffix("dbus-daemon") == true }
        XCTAssertEqual(daemons.count, 1, "dbus-run-session's bus")
        for daemon in daemons { kill(daemon, SIGTERM) }
        XCTAssertEqual(
            ProcessTable.waitUntilGone(environment: "COFFER_TEST_MARKER", equalTo: foregroundMarker, timeout: .seconds(5)), [],
            "the foreground agent ended with its bus")
    }

    /// An agent that holds a vault for its socket's clients (here unlocked with `coffer unlock`)
    /// goes on when its bus goes, says so in `agent status`, and still serves the CLI.
    func testAnAgentHoldingVaultsGoesOnWithoutItsBus() throws {
        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        XCTAssertEqual(try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).status, 0)
        defer { stopAgent() }
        let serving = try coffer(["agent", "status"])
        XCTAssertTrue(serving.stdoutText.contains("\n  Secret Service: serving org.freedesktop.secrets\n"), serving.stdoutText)
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try coffer(["set", "after.example", "ada"], stdin: Data("kept".utf8), environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        bus.end()
        var status = try coffer(["agent", "status"])
        for _ in 0..<250 where !status.stdoutText.contains("session bus closed") {
            usleep(20_000)
            status = try coffer(["agent", "status"])
        }
        XCTAssertEqual(status.status, 0, "the agent goes on: \(status.stderrText)")
        XCTAssertTrue(status.stdoutText.contains("\n  Secret Service: the session bus closed; the agent serves its socket alone\n"), status.stdoutText)
        let json = try JSONSerialization.jsonObject(with: try coffer(["agent", "status", "--json"]).stdout) as? [String: Any]
        XCTAssertEqual(json?["secretService"] as? String, "busClosed")
        XCTAssertEqual(try coffer(["get", "after.example", "ada"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "kept", "through the agent")
    }

    /// The agent's pid, from `agent status --json`.
    private func agentPID() throws -> Int? {
        let status = try coffer(["agent", "status", "--json"])
        return (try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["pid"] as? Int
    }

    /// A jeepney client that owns org.freedesktop.secrets, allowing replacement: prints the
    /// RequestName reply, then "NameLost" when the bus takes the name away.
    private static let nameHolder = """
        import sys
        from jeepney import DBusAddress, MatchRule, new_method_call
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
        c = open_dbus_connection(bus="SESSION")
        rule = MatchRule(type="signal", interface="org.freedesktop.DBus", member="NameLost")
        c.send_and_get_reply(message_bus.AddMatch(rule))
        with c.filter(rule) as queue:
            print(c.send_and_get_reply(new_method_call(bus, "RequestName", "su", ("org.freedesktop.secrets", 1 | 4))).body[0], flush=True)
            c.recv_until_filtered(queue, timeout=120)
            print("NameLost", flush=True)
        sys.stdin.read()
        """

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
        try openAccessPolicy()
        defer { stopAgent() }

        XCTAssertNotEqual(try secretTool(bus, ["lookup", "service", "s", "username", "u"]).status, 0, "activated, and locked")
        XCTAssertTrue(try bus.hasOwner("org.freedesktop.secrets"), "the lookup started Coffer")
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["store", "--label=L", "service", "s", "username", "u"], stdin: Data("v".utf8)).status, 0)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "s", "username", "u"]).stdoutText, "v")
    }

    /// A bus that is not the user's own, the way `coffer agent start --secret-service` meets it:
    /// a socket of another user (uid 65534, whose bus admits every user) is refused, naming its
    /// owner; `autolaunch:` is refused without running `dbus-launch` (a stand-in on `PATH` would
    /// leave a mark; `DISPLAY` is set, as GDBus autolaunches only with one); `unixexec:` is refused
    /// without running its program. Each exits 69 with one clear line, and leaves no agent.
    /// Before, `autolaunch:` ran `dbus-launch`, and another user's bus was served.
    func testABusThatIsNotTheUsersOwnIsRefused() throws {
        try initVault()
        try openAccessPolicy()
        let mark = folder.file("ran")
        let bin = folder.file("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: false)
        try "#!/bin/sh\ntouch '\(mark.path)'\nexit 1\n".write(to: bin.appendingPathComponent("dbus-launch"), atomically: false, encoding: .utf8)
        chmod(bin.appendingPathComponent("dbus-launch").path, 0o700)
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        var cases: [(address: String, says: String)] = [
            ("autolaunch:", "the session bus address \"autolaunch:\" starts a program or asks another service where the bus is"),
            ("unixexec:path=/bin/sh,argv1=-c,argv2=touch%20\(mark.path)", "starts a program or asks another service where the bus is"),
        ]
        var theirs: PrivateBus?
        if geteuid() == 0 {
            theirs = try PrivateBus(users: PrivateBus.Users(everyone: true, daemon: 65534))
            cases.append((theirs!.address, "belongs to uid 65534, not to this user (uid 0); the Secret Service runs only on the user's own bus"))
        }
        for (address, says) in cases {
            let start = try coffer(["agent", "start", "--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": path, "DISPLAY": ":99"])
            XCTAssertEqual(start.exitStatus, .unavailable, "\(address): \(start.stderrText)")
            XCTAssertTrue(start.stderrText.hasPrefix("coffer: ") && start.stderrText.contains(says), "\(address): \(start.stderrText)")
            XCTAssertEqual(start.stderrText.split(separator: "\n").count, 1, start.stderrText)
            XCTAssertFalse(FileManager.default.fileExists(atPath: mark.path), "\(address) ran a program")
            if try coffer(["agent", "status"]).status == 0 {
                XCTFail("\(address): an agent was left running")
                stopAgent()
            }
        }
        if let theirs { XCTAssertFalse(try theirs.hasOwner("org.freedesktop.secrets")) }
    }

    /// A client's `SearchItems` with 300,000 attributes is refused with `LimitsExceeded`, and
    /// the agent (a process of its own, `--foreground`) gives back the memory GDBus took for the
    /// message: its resident size comes back within 50 MB of what it was before (it rose by
    /// about 130 MB while the message was read). Before, it stayed about 150 MB higher.
    func testAHugeSearchIsRefusedAndItsMemoryGivenBack() throws {
        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        let agent = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["agent", "start", "--foreground", "--secret-service"],
            environment: baseEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        defer { agent.stop() }
        let started = ContinuousClock.now + .seconds(10)
        while !(try bus.hasOwner("org.freedesktop.secrets")), ContinuousClock.now < started { usleep(10_000) }
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        func residentMegabytes() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(agent.pid)/status", encoding: .utf8)
            let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) / 1024
        }
        let script = """
            import sys
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
            connection = open_dbus_connection(bus="SESSION")
            def search(attributes):
                reply = connection.send_and_get_reply(new_method_call(service, "SearchItems", "a{ss}", (attributes,)), timeout=120)
                return reply.header.fields[4] if reply.header.message_type.name == "error" else "ok"
            if sys.argv[1] == "small":
                print(search({"service": "mail"}))
            else:
                print(search({"name%07d" % i: "value" for i in range(300000)}))
            """
        let small = try ChildProcess.run("/usr/bin/python3", ["-c", script, "small"], environment: bus.clientEnvironment, timeout: .seconds(60))
        XCTAssertEqual(small.stdoutText, "ok\n", small.stderrText)
        let before = try residentMegabytes()
        let huge = try ChildProcess.run("/usr/bin/python3", ["-c", script, "huge"], environment: bus.clientEnvironment, timeout: .seconds(120))
        XCTAssertEqual(huge.stdoutText, "org.freedesktop.DBus.Error.LimitsExceeded\n", huge.stderrText)
        if let sanitizer = TestTiming.sanitizer {
            // A sanitizer's allocator keeps what is freed (AddressSanitizer's quarantine, ThreadSanitizer's caches).
            print("SecretServiceAgentTests: the bound on resident memory is not checked under the \(sanitizer) sanitizer, whose allocator keeps freed memory")
        } else {
            var after = try residentMegabytes()
            let deadline = ContinuousClock.now + .seconds(10)
            while after > before + 50, ContinuousClock.now < deadline {
                usleep(100_000)
                after = try residentMegabytes()
            }
            XCTAssertLessThanOrEqual(after, before + 50, "resident \(before) MB before, \(after) MB after")
        }
        XCTAssertEqual(try ChildProcess.run("/usr/bin/python3", ["-c", script, "small"], environment: bus.clientEnvironment).stdoutText, "ok\n")
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

    /// A held vault's collection is labelled with its file's name, which may hold any character:
    /// the unlock question the prompter gets in `COFFER_PROMPT` shows it escaped (a regression:
    /// the label went in raw, so an escape sequence or a line break in a file name reached the
    /// prompter's text as it was), and `COFFER_PROMPT_KIND` is `passphrase`.
    func testAHeldVaultsNameReachesThePrompterEscaped() throws {
        let bus = try PrivateBus()
        try initVault()
        try openAccessPolicy()
        let odd = folder.file("odd\u{1B}[31m\nname.vault")
        XCTAssertEqual(try coffer(["--vault", odd.path, "init", "--kdf", "interactive"]).status, 0)
        let told = folder.file("prompter-environment")
        let prompter = "cat /proc/$$/environ > '\(told.path)'; printf '%s\\n' '\(passphrase)'"
        let start = try coffer(
            ["agent", "start", "--secret-service", "--prompter", prompter], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_PASSPHRASE": nil])
        XCTAssertEqual(start.status, 0, start.stderrText)
        defer { _ = try? coffer(["agent", "stop"]) }
        XCTAssertEqual(try coffer(["--vault", odd.path, "unlock"]).status, 0)
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            held = [c for c in secretstorage.get_all_collections(connection) if c.get_label() != "Login"]
            print(len(held))
            """
        XCTAssertEqual(try ChildProcess.run("/usr/bin/python3", ["-c", script], environment: bus.clientEnvironment, timeout: .seconds(30)).stdoutText, "1\n")
        XCTAssertEqual(try coffer(["--vault", odd.path, "lock"]).status, 0)
        let unlock = """
            import secretstorage
            connection = secretstorage.dbus_init()
            held = [c for c in secretstorage.get_all_collections(connection) if c.get_label() != "Login"][0]
            print(held.is_locked(), held.unlock(), held.is_locked())
            """
        let unlocked = try ChildProcess.run("/usr/bin/python3", ["-c", unlock], environment: bus.clientEnvironment, timeout: .seconds(30))
        XCTAssertEqual(unlocked.stdoutText, "True False False\n", unlocked.stderrText)
        let variables = try String(decoding: Data(contentsOf: told), as: UTF8.self).split(separator: "\u{0}").map(String.init)
        XCTAssertTrue(variables.contains("COFFER_PROMPT=Unlock the Coffer collection odd\\x1b[31m\\nname"), "\(variables.filter { $0.hasPrefix("COFFER_") })")
        XCTAssertTrue(variables.contains("COFFER_PROMPT_KIND=passphrase"))
    }
}
