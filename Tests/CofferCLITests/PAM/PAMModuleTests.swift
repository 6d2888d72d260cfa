import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// pam_coffer.so, driven by pamtester under cwrap's pam_wrapper (``PAMLogin``): a login keeps the
/// password, opens (or first creates) the login vault in the user's agent, a password change
/// rewraps it, and nothing the module meets blocks the login.
final class PAMModuleTests: XCTestCase {
    private let folder = TemporaryFolder()
    private var login: PAMLogin!
    private let password = "correct horse battery"

    override func setUpWithError() throws {
        login = try PAMLogin(folder: folder)
        try login.setPassword(password)
    }

    override func tearDown() {
        login?.stopAgent()
        super.tearDown()
    }

    /// Logs in: authenticate, then open_session, the password typed twice (pam_exec asks, then pam_matrix).
    private func logIn(with typed: String? = nil) throws -> PAMLogin.Outcome {
        let typed = typed ?? password
        return try login.pamtester(["authenticate", "open_session"], input: [typed, typed])
    }

    private func assertLoggedIn(_ outcome: PAMLogin.Outcome, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("successfully opened a session"), outcome.stdout, file: file, line: line)
    }

    /// Logs in through a service whose module lines have `arguments`, and asserts that the login
    /// worked and that the module logged exactly one line, holding each of `fragments` and not the password.
    @discardableResult
    private func logIn(arguments: String, loggingOneLineWith fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> PAMLogin.Outcome
    {
        try login.writeService(arguments)
        let outcome = try logIn()
        assertLoggedIn(outcome, file: file, line: line)
        XCTAssertEqual(outcome.logLines.count, 1, outcome.stderr, file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(outcome.logLines.first?.contains(fragment) == true, "\(fragment): \(outcome.stderr)", file: file, line: line)
        }
        XCTAssertFalse(outcome.stderr.contains(password), file: file, line: line)
        return outcome
    }

    /// The module, as scripts/pam-module.sh builds it (`make pam`), is C linked against libc and
    /// libpam alone: loading it into sshd or login loads no Swift runtime (readelf's NEEDED
    /// entries, and ldd's whole closure), and it exports only PAM's entry points.
    func testTheModuleLinksOnlyLibcAndLibpam() throws {
        let dynamic = try ChildProcess.run("/usr/bin/readelf", ["-d", login.module.path])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderrText)
        let needed = dynamic.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
        XCTAssertEqual(Set(needed), ["libc.so.6", "libpam.so.0"])
        let closure = try ChildProcess.run("/usr/bin/ldd", [login.module.path])
        XCTAssertEqual(closure.status, 0, closure.stderrText)
        XCTAssertFalse(closure.stdoutText.lowercased().contains("swift"), closure.stdoutText)
        let symbols = try ChildProcess.run("/usr/bin/nm", ["-D", "--defined-only", login.module.path])
        let exported = Set(symbols.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        XCTAssertEqual(
            Set(exported.filter { !$0.hasPrefix("_") }),
            ["pam_sm_authenticate", "pam_sm_setcred", "pam_sm_open_session", "pam_sm_close_session", "pam_sm_chauthtok"])
    }

    /// The first login creates the login vault (0600) with the login password, starts the agent
    /// (`auto_start`) and leaves the vault unlocked in it: the user's coffer then stores and
    /// reads an item with no passphrase. The module logs one line, without the password.
    func testTheFirstLoginCreatesTheLoginVaultAndUnlocksIt() throws {
        try logIn(arguments: "coffer=\(login.coffer) auto_start", loggingOneLineWith: ["created and started the agent, unlocked the login vault of ada"])
        let mode = try FileManager.default.attributesOfItem(atPath: login.loginVault.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertTrue(try login.agentHoldsLoginVault())
        XCTAssertEqual(try login.coffer(["set", "mail", "ada"], stdin: Data("stored at login".utf8)).status, 0)
        let read = try login.coffer(["get", "mail", "ada"])
        XCTAssertEqual(read.status, 0, read.stderrText)
        XCTAssertEqual(read.stdoutText, "stored at login")
        // The vault opens with the login password itself.
        XCTAssertEqual(try login.coffer(["lock"]).status, 0)
        let direct = try login.coffer(["get", "mail", "ada", "--passphrase-fd", "3"], inputs: [3: Data(password.utf8)])
        XCTAssertEqual(direct.stdoutText, "stored at login", direct.stderrText)
    }

    /// A session opened for another user than the one who authenticated (sudo: ada's password,
    /// then PAM_USER set to bob before the session) does not use the password: no coffer runs
    /// as bob, so bob gets no login vault made with ada's password, and ada's password reaches
    /// nothing bob runs. The module logs one line saying so. Before, bob's login vault was
    /// created with ada's password and `coffer unlock` as bob was handed it.
    func testASessionForAnotherUserDoesNotUseThePasswordFromAuth() throws {
        try login.writeService("coffer=\(login.coffer)", sessionSetsItems: true)
        let outcome = try login.pamtester(["authenticate", "open_session"], input: [password, password], environment: ["PAM_USER": login.otherUser])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("successfully opened a session"), outcome.stdout)
        XCTAssertEqual(outcome.logLines.count, 1, outcome.stderr)
        XCTAssertTrue(outcome.logLines.first?.contains("the session is bob's, not the authenticated user's; the password is not used") == true, outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains(password))
        let bobsVault = login.otherHome.appendingPathComponent(".local/share/coffer/default.vault")
        XCTAssertFalse(FileManager.default.fileExists(atPath: bobsVault.path), "no login vault made for bob")
        XCTAssertFalse(FileManager.default.fileExists(atPath: login.loginVault.path), "nor for ada, whose session this is not")
    }

    /// A user whose passwd entry is longer than `_SC_GETPW_R_SIZE_MAX` (1,024 bytes here; a
    /// long comment or home from LDAP) is found all the same: the lookup grows its buffer.
    /// Before, the module logged "no user ada" and left the vault locked.
    func testAUserWithALongPasswdEntryIsFound() throws {
        try login.writeUserDatabase(gecos: String(repeating: "Ada Lovelace, ", count: 150))
        try login.createVault(passphrase: password)
        try logIn(arguments: "coffer=\(login.coffer) auto_start", loggingOneLineWith: ["started the agent, unlocked the login vault of ada"])
        XCTAssertTrue(try login.agentHoldsLoginVault())
    }

    /// A later login unlocks the existing login vault in the running agent: after `coffer lock`,
    /// a login makes `coffer get` work again with no passphrase.
    func testALoginUnlocksTheLoginVaultInTheRunningAgent() throws {
        try login.createVault(passphrase: password)
        XCTAssertEqual(try login.coffer(["set", "mail", "ada", "--passphrase-fd", "3"], stdin: Data("kept".utf8), inputs: [3: Data(password.utf8)]).status, 0)
        XCTAssertEqual(try login.coffer(["agent", "start"]).status, 0)
        XCTAssertFalse(try login.agentHoldsLoginVault())
        XCTAssertNotEqual(try login.coffer(["get", "mail", "ada"]).status, 0, "locked before the login")
        try logIn(arguments: "coffer=\(login.coffer)", loggingOneLineWith: ["unlocked the login vault of ada"])
        XCTAssertTrue(try login.agentHoldsLoginVault())
        XCTAssertEqual(try login.coffer(["get", "mail", "ada"]).stdoutText, "kept")
    }

    /// The password reaches coffer only on a pipe: a probe in front of the real coffer records
    /// every argv and environment the module gives it, and none holds the password, nor any of
    /// pamtester's own variables (LD_PRELOAD, PAM_WRAPPER…): the environment is rebuilt from
    /// nothing. The vault is unlocked all the same, so the password did arrive.
    func testThePasswordNeverReachesArgvOrTheEnvironment() throws {
        let record = login.home.appendingPathComponent("probe.log")
        let probe = folder.file("probe-coffer")
        try """
            #!/bin/sh
            { printf 'argv:'; printf ' %s' "$0" "$@"; printf '\\n'; env | sed 's/^/env: /'; } >> "$HOME/probe.log"
            exec \(login.coffer) "$@"

            """.write(to: probe, atomically: true, encoding: .utf8)
        chmod(probe.path, 0o755)
        try login.writeService("coffer=\(probe.path) auto_start")
        let outcome = try logIn()
        assertLoggedIn(outcome)
        XCTAssertTrue(try login.agentHoldsLoginVault(), outcome.stderr)
        let recorded = try String(contentsOf: record, encoding: .utf8)
        XCTAssertEqual(recorded.components(separatedBy: "\n").filter { $0.hasPrefix("argv:") }.count, 5, "unlock, init, unlock, agent start, unlock")
        XCTAssertFalse(recorded.contains(password))
        XCTAssertFalse(recorded.contains("correct"))
        let names = Set(recorded.split(separator: "\n").filter { $0.hasPrefix("env: ") }.map { $0.dropFirst(5).prefix { $0 != "=" } }.map(String.init))
        XCTAssertTrue(names.isSubset(of: ["HOME", "USER", "LOGNAME", "PATH", "PWD"]), "\(names.sorted())")
        XCTAssertTrue(recorded.contains("env: HOME=\(login.home.path)"))
    }

    /// `XDG_RUNTIME_DIR` from the PAM environment (pam_systemd sets it) reaches coffer, so the
    /// agent the module starts listens where the user's own commands look: `$XDG_RUNTIME_DIR/coffer/agent.sock`.
    /// A variable that is not an absolute path does not pass.
    func testTheRuntimeFolderFromThePAMEnvironmentPlacesTheAgent() throws {
        let runtime = folder.file("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
        chown(runtime.path, login.uid, login.uid)
        chmod(runtime.path, 0o700)
        defer { login.stopAgent(runtimeFolder: runtime) }
        try login.writeService("coffer=\(login.coffer) auto_start")
        let outcome = try login.pamtester(
            ["authenticate", "open_session"], input: [password, password], pamEnvironment: ["XDG_RUNTIME_DIR": runtime.path, "XDG_DATA_HOME": "relative"])
        assertLoggedIn(outcome)
        XCTAssertTrue(FileManager.default.fileExists(atPath: runtime.appendingPathComponent("coffer/agent.sock").path), outcome.stderr)
        XCTAssertTrue(try login.agentHoldsLoginVault(runtimeFolder: runtime))
        XCTAssertTrue(FileManager.default.fileExists(atPath: login.loginVault.path), "XDG_DATA_HOME=relative is not passed")
    }

    /// chauthtok rewraps the login vault's passphrase slot: afterwards the old password does
    /// not open the vault and the new one does, and the next login (with the new password)
    /// unlocks it in the agent.
    func testChangingThePasswordRewrapsTheLoginVault() throws {
        try login.createVault(passphrase: password)
        try login.writeService("coffer=\(login.coffer) auto_start")
        let newPassword = "new staple tuning fork"
        let change = try login.pamtester(
            ["chauthtok"], input: [password, newPassword, newPassword], environment: ["PAM_OLDAUTHTOK": password])
        XCTAssertEqual(change.status, 0, change.stderr)
        XCTAssertEqual(change.logLines.count, 1, change.stderr)
        XCTAssertTrue(change.logLines.first?.contains("changed the passphrase of the login vault of ada") == true, change.stderr)
        let old = try login.coffer(["list", "--passphrase-fd", "3"], inputs: [3: Data(password.utf8)])
        XCTAssertEqual(old.status, 2, "the old password no longer opens the vault: \(old.stderrText)")
        let new = try login.coffer(["list", "--passphrase-fd", "3"], inputs: [3: Data(newPassword.utf8)])
        XCTAssertEqual(new.status, 0, new.stderrText)
        assertLoggedIn(try logIn(with: newPassword))
        XCTAssertTrue(try login.agentHoldsLoginVault())
    }

    /// A login password that does not open the login vault (its passphrase is another) leaves
    /// the login working and the vault locked, with one log line that says why and holds no password.
    func testAWrongPasswordLeavesTheLoginWorkingAndTheVaultLocked() throws {
        try login.createVault(passphrase: "another passphrase")
        try logIn(
            arguments: "coffer=\(login.coffer) auto_start", loggingOneLineWith: ["the login vault of ada stays locked", "the login password does not open it"])
        XCTAssertFalse(try login.agentHoldsLoginVault())
    }

    /// Without `auto_start` and with no agent, the login works; the vault is created on the
    /// first login but stays locked, and the log line says that no agent runs.
    func testNoAgentLeavesTheLoginWorking() throws {
        try logIn(arguments: "coffer=\(login.coffer)", loggingOneLineWith: ["stays locked (created)", "no agent runs"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: login.loginVault.path))
        XCTAssertNotEqual(try login.coffer(["agent", "status"]).status, 0, "no agent was started")
    }

    /// A missing coffer binary leaves the login working, with one log line naming it; so does
    /// a relative path, which the module refuses without running anything.
    func testAMissingCofferLeavesTheLoginWorking() throws {
        try logIn(arguments: "coffer=/nonexistent/coffer auto_start", loggingOneLineWith: ["cannot run /nonexistent/coffer: No such file or directory"])
        try login.writeService("coffer=bin/coffer auto_start")
        let relative = try logIn()
        assertLoggedIn(relative)
        XCTAssertTrue(relative.logLines.allSatisfy { $0.contains("coffer=bin/coffer is not an absolute path") }, relative.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: login.loginVault.path))
    }

    /// A coffer that hangs is killed at the module's deadline (`timeout=1`), with everything it
    /// started in its process group, and the login goes on.
    func testAHungCofferIsKilledAtTheDeadline() throws {
        let hung = folder.file("hung-coffer")
        try "#!/bin/sh\n/bin/sleep 300 &\nexec /bin/sleep 300\n".write(to: hung, atomically: true, encoding: .utf8)
        chmod(hung.path, 0o755)
        let started = ContinuousClock.now
        try logIn(arguments: "coffer=\(hung.path) timeout=1", loggingOneLineWith: ["coffer unlock did not finish within 1 s and was killed"])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20))
        // Killed: no live process of the test's user is left (the background one's zombie, if
        // the machine's init is slow to reap it, is dead already).
        let deadline = ContinuousClock.now + .seconds(5)
        var left = processes(of: login.uid)
        while !left.isEmpty, ContinuousClock.now < deadline {
            usleep(20_000)
            left = processes(of: login.uid)
        }
        XCTAssertEqual(left, [])
    }

    /// A coffer that SIGKILL cannot end, asleep in the kernel on a home that never answers (a
    /// dead hard-mounted NFS home; here a FUSE server that reads every request and answers none:
    /// Fixtures/stuck_fuse.py, and the child stops in its chdir to the home), is left behind 2 s
    /// after the deadline: the login goes on, with one log line saying so. It is not the PAM
    /// application's child (a watcher between them is killed), and it ends once the file system
    /// goes. Before, the module waited for it for ever, and the login with it.
    func testACofferStuckInTheKernelIsLeftBehindAndTheLoginGoesOn() throws {
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else {
            throw XCTSkip("no /dev/fuse here, so no file system that never answers (the container needs --device /dev/fuse)")
        }
        guard (try? ChildProcess.run("/usr/bin/python3", ["-c", "import ctypes"], timeout: .seconds(20)))?.status == 0 else {
            throw MissingPrerequisite.error("python3 is missing: run scripts/bootstrap.sh test")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/stuck_fuse.py")
        let server = try ChildProcess.start("/usr/bin/python3", [script.path, login.home.path])
        // Stopping the server aborts the connection: whatever waits on it goes on, and ends.
        defer {
            server.stop()
            _ = try? ChildProcess.run("/bin/umount", ["-l", login.home.path], timeout: .seconds(20))
        }
        guard (try? server.errorLines(1, timeout: .seconds(20))) == ["ready"] else {
            let output = server.stop()
            throw XCTSkip("cannot mount a FUSE file system here: \(output?.stderrText ?? "no answer within 20 s")")
        }
        try login.writeService("coffer=\(login.coffer) timeout=1")
        let started = ContinuousClock.now
        let outcome = try login.pamtester(["authenticate", "open_session"], input: [password, password], timeout: .seconds(30))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
        assertLoggedIn(outcome)
        XCTAssertEqual(outcome.logLines.count, 1, outcome.stderr)
        XCTAssertTrue(
            outcome.logLines.first?.contains("coffer unlock did not finish within 1 s and did not end after SIGKILL") == true, outcome.stderr)
        XCTAssertEqual(processes(of: login.uid).count, 1, "the stuck coffer is left behind")
        server.stop()
        let deadline = ContinuousClock.now + .seconds(5)
        var left = processes(of: login.uid)
        while !left.isEmpty, ContinuousClock.now < deadline {
            usleep(20_000)
            left = processes(of: login.uid)
        }
        XCTAssertEqual(left, [], "it ends once the file system goes")
    }

    /// The password kept from auth is zeroed when PAM lets it go: at pam_end after auth alone,
    /// and when the session has used it. The probe (Fixtures/pam_stash_probe.c) watches every
    /// heap block of the password's size: with the module, one more such block is freed zeroed
    /// than without it, and none is freed still holding the password.
    func testTheKeptPasswordIsZeroed() throws {
        let probe = try CProgram.build(
            packageRoot.appendingPathComponent("Tests/CofferCLITests/Fixtures/pam_stash_probe.c"), named: "pam-stash-probe", packages: ["pam"])
        func probeRun(withModule: Bool, session: Bool) throws -> String {
            let module = withModule ? "optional \(login.module.path) coffer=/nonexistent/coffer" : nil
            let lines = ["auth required \(login.wrapperModules)/pam_set_items.so", module.map { "auth \($0)" }, "auth required pam_permit.so",
                "session required pam_permit.so", module.map { "session \($0)" }].compactMap { $0 }
            try (lines.joined(separator: "\n") + "\n").write(to: login.services.appendingPathComponent("probe"), atomically: true, encoding: .utf8)
            let output = try ChildProcess.run(
                probe, ["probe", login.user] + (session ? ["session"] : []),
                environment: [
                    "LD_PRELOAD": login.preload, "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": login.services.path,
                    "NSS_WRAPPER_PASSWD": folder.file("passwd").path, "NSS_WRAPPER_GROUP": folder.file("group").path,
                    "PAM_AUTHTOK": password,
                ])
            XCTAssertEqual(output.status, 0, output.stderrText)
            return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        for session in [false, true] {
            XCTAssertEqual(try probeRun(withModule: false, session: session), "status=0 freed_holding=0 freed_zeroed=1")
            XCTAssertEqual(try probeRun(withModule: true, session: session), "status=0 freed_holding=0 freed_zeroed=2")
        }
    }

    /// The module leaves the application's SIGCHLD handling alone while coffer runs: a child of
    /// the application that ends then is announced to the application's handler (which never
    /// sees the module's own processes), and in an application that ignores SIGCHLD it is reaped
    /// by the kernel, leaving no zombie. The module still waits for coffer to end (the fake
    /// coffer writes its mark after a second). Before, the module set SIGCHLD to its default
    /// while coffer ran: the handler missed that child, and the ignoring application kept it as
    /// a zombie. The probe is Fixtures/pam_sigchld_probe.c.
    func testTheApplicationsChildrenAreAnnouncedWhileCofferRuns() throws {
        let probe = try CProgram.build(
            packageRoot.appendingPathComponent("Tests/CofferCLITests/Fixtures/pam_sigchld_probe.c"), named: "pam-sigchld-probe", packages: ["pam"])
        let mark = login.home.appendingPathComponent("coffer-ran"), fake = folder.file("slow-coffer")
        try "#!/bin/sh\n/bin/sleep 1\necho ran >> \(mark.path)\n".write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)
        let module = "optional \(login.module.path) coffer=\(fake.path)"
        let lines = ["auth required \(login.wrapperModules)/pam_set_items.so", "auth \(module)", "auth required pam_permit.so",
            "session required pam_permit.so", "session \(module)"]
        try (lines.joined(separator: "\n") + "\n").write(to: login.services.appendingPathComponent("probe"), atomically: true, encoding: .utf8)
        for (mode, expected) in [("handler", "own=1 other=0 left=0"), ("ignore", "own=0 other=0 left=0")] {
            try? FileManager.default.removeItem(at: mark)
            let output = try ChildProcess.run(
                probe, ["probe", login.user, mode],
                environment: [
                    "LD_PRELOAD": login.preload, "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": login.services.path,
                    "NSS_WRAPPER_PASSWD": folder.file("passwd").path, "NSS_WRAPPER_GROUP": folder.file("group").path,
                    "PAM_AUTHTOK": password,
                ])
            XCTAssertEqual(output.status, 0, output.stderrText)
            XCTAssertEqual(output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), expected, "\(mode): \(output.stderrText)")
            XCTAssertEqual(try String(contentsOf: mark, encoding: .utf8), "ran\n", "\(mode): the module waited for coffer to end")
        }
    }

    /// The live (not zombie) processes whose real uid is `uid`, by pid.
    private func processes(of uid: uid_t) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
            let lines = status.split(separator: "\n")
            let zombie = lines.first { $0.hasPrefix("State:") }?.contains("Z") ?? false
            return !zombie && lines.first { $0.hasPrefix("Uid:") }?.split(whereSeparator: \.isWhitespace).dropFirst().first == "\(uid)"
        }.sorted()
    }
}
