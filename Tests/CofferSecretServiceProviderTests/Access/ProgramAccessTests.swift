import Coffer
import CofferBase
import CofferTestSupport
import Foundation
import Glibc
import XCTest
@testable import CofferSecretServiceProvider

/// Per-application access on the Secret Service (docs/secret-service.md, "Other programs'
/// items"), driven by real programs, each a different one: python-keyring, secret-tool (and a
/// copy of it), git's libsecret credential helper, jeepney scripts. The login vault's policy is
/// `confirm` unless a test says otherwise; the prompter is ``AccessPrompter``.
final class ProgramAccessTests: XCTestCase {
    let folder = TemporaryFolder()
    private let keyringItem = ItemID.genericPassword(service: "mail.example", account: "ada")

    private func fixture(_ policy: AccessPolicy = .confirm, prompter: AccessPrompter? = nil) throws -> ProviderFixture {
        try ProviderFixture(prompter: prompter?.command, prompterTimeout: .seconds(10), policy: policy)
    }

    /// python-keyring (python3 -c) stores `mail.example`/`ada`.
    private func keyringStores(_ fixture: ProviderFixture, _ secret: String = "s3cret") throws {
        let stored = try fixture.python(["-c", "import keyring.backends.SecretService as s; s.Keyring().set_password('mail.example', 'ada', '\(secret)')"])
        XCTAssertEqual(stored.status, 0, stored.stderrText)
    }

    private func secretToolLookup(_ fixture: ProviderFixture, _ executable: String = "secret-tool") throws -> ChildProcess.Output {
        try fixture.run(executable, ["lookup", "service", "mail.example", "username", "ada"])
    }

    private static let python = "/usr/bin/python3".realPathBytes
    private static let secretTool = "/usr/bin/secret-tool".realPathBytes

    /// python-keyring stores an item and reads it again, in that process and in a later one,
    /// with no question asked: the item's owner is python3 (the program python-keyring runs in),
    /// and each write and read is in the audit log as the owner's.
    func testPythonKeyringReadsItsOwnItemSilently() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        let script = """
            import keyring.backends.SecretService as s
            k = s.Keyring()
            k.set_password('mail.example', 'ada', 's3cret')
            print(k.get_password('mail.example', 'ada'))
            """
        let first = try fixture.python(["-c", script])
        XCTAssertEqual(first.status, 0, first.stderrText)
        XCTAssertEqual(first.stdoutText, "s3cret\n")
        let again = try fixture.python(["-c", "import keyring.backends.SecretService as s; print(s.Keyring().get_password('mail.example', 'ada'))"])
        XCTAssertEqual(again.stdoutText, "s3cret\n", again.stderrText)
        XCTAssertEqual(prompter.questions, [], "the owner is never asked about")
        XCTAssertEqual(try fixture.login.access(for: keyringItem)?.owner?.executablePath, Self.python)
        let log = try fixture.login.auditLog()
        XCTAssertFalse(log.isEmpty)
        XCTAssertTrue(log.allSatisfy { $0.frontDoor == .secretService && $0.decision == .owner && $0.program?.executablePath == Self.python }, "\(log)")
        XCTAssertEqual(Set(log.map(\.action)), [.write, .read])
    }

    /// `secret-tool lookup` of python-keyring's item: the search lists it as locked, libsecret
    /// unlocks it, and the prompt asks the person about secret-tool. `deny` keeps the secret from
    /// it; `once` gives it to that one run (the next run is asked again); `always` gives it and
    /// puts secret-tool on the item's access list, so the next run is not asked. Each answer is
    /// in the log.
    func testSecretToolLookupOfAnotherProgramsItemRunsThePrompter() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        try keyringStores(fixture)

        let denied = try secretToolLookup(fixture)
        XCTAssertEqual(denied.stdoutText, "", "deny: no secret")
        XCTAssertEqual(prompter.questions.count, 1)
        let question = try XCTUnwrap(prompter.questions.first)
        // COFFER_PROMPT_PROGRAM is the executable's path alone (docs/prompts.md; issue 26.5).
        XCTAssertEqual(question, "access|\(Self.secretTool.string)|Password for 'ada' on 'mail.example'")
        XCTAssertEqual(try fixture.login.auditLog(limit: 1).first?.decision, .denied)

        try prompter.answer("once")
        XCTAssertEqual(try secretToolLookup(fixture).stdoutText, "s3cret")
        XCTAssertEqual(try secretToolLookup(fixture).stdoutText, "s3cret")
        XCTAssertEqual(prompter.questions.count, 3, "once: each run (each connection) is asked")
        XCTAssertEqual(try fixture.login.access(for: keyringItem)?.allowed, [])

        try prompter.answer("always")
        XCTAssertEqual(try secretToolLookup(fixture).stdoutText, "s3cret")
        XCTAssertEqual(try fixture.login.access(for: keyringItem)?.allowed.map(\.executablePath), [Self.secretTool])
        try prompter.answer("deny")
        XCTAssertEqual(try secretToolLookup(fixture).stdoutText, "s3cret", "on the list: read silently")
        XCTAssertEqual(prompter.questions.count, 4)

        let reads = try fixture.login.auditLog().filter { $0.action == .read && $0.program?.executablePath == Self.secretTool }
        // Newest first: the listed read, then always (the prompt) and its read, then two once
        // runs (prompt and read each), then the refusal.
        XCTAssertEqual(reads.map(\.decision), [.allowed, .allowed, .always, .once, .once, .once, .once, .denied])
    }

    /// python-keyring reading an item secret-tool stored: secretstorage sees the item `Locked`,
    /// unlocks it through the prompt, and reads it after `once`; after `deny` python-keyring
    /// raises its own `KeyringLocked`, as with a locked gnome-keyring item.
    func testPythonKeyringUnlocksAnotherProgramsItemThroughThePrompt() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        let stored = try fixture.run("secret-tool", ["store", "--label=Mail", "service", "mail.example", "username", "ada"], stdin: Data("s3cret".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let read = "import keyring.backends.SecretService as s; print(s.Keyring().get_password('mail.example', 'ada'))"
        let denied = try fixture.python(["-c", read])
        XCTAssertNotEqual(denied.status, 0)
        XCTAssertTrue(denied.stderrText.contains("KeyringLocked"), denied.stderrText)
        try prompter.answer("once")
        let allowed = try fixture.python(["-c", read])
        XCTAssertEqual(allowed.stdoutText, "s3cret\n", allowed.stderrText)
        XCTAssertEqual(prompter.questions.count, 2)
        XCTAssertTrue(prompter.questions.allSatisfy { $0.hasPrefix("access|\(Self.python.string)") }, "\(prompter.questions)")
    }

    /// `once` is for the connection that asked, until it leaves the bus: after its `Unlock`, a
    /// secretstorage connection sees the item unlocked and reads it again with no question, while
    /// a second connection of the same process still sees it locked.
    func testOnceIsForTheConnectionThatAsked() throws {
        let prompter = try AccessPrompter(in: folder)
        try prompter.answer("once")
        let fixture = try fixture(prompter: prompter)
        XCTAssertEqual(try fixture.run("secret-tool", ["store", "--label=Mail", "service", "mail.example", "username", "ada"], stdin: Data("s3cret".utf8)).status, 0)
        let script = """
            import secretstorage
            first = secretstorage.dbus_init()
            item = next(secretstorage.search_items(first, {'service': 'mail.example'}))
            print(item.is_locked())
            print(item.unlock(), item.is_locked(), item.get_secret().decode(), item.get_secret().decode())
            second = secretstorage.dbus_init()
            print(next(secretstorage.search_items(second, {'service': 'mail.example'})).is_locked())
            """
        let output = try fixture.python(["-c", script])
        XCTAssertEqual(output.stdoutText, "True\nFalse False s3cret s3cret\nTrue\n", output.stderrText)
        XCTAssertEqual(prompter.questions.count, 1)
    }

    /// With no prompter, nobody can say yes: `secret-tool lookup` of another program's item
    /// ends at once with nothing, and the refusal is logged as `no-prompter`.
    func testWithoutAPrompterAnotherProgramGetsNothing() throws {
        let fixture = try fixture()
        try keyringStores(fixture)
        let lookup = try secretToolLookup(fixture)
        XCTAssertEqual(lookup.stdoutText, "")
        XCTAssertEqual(try fixture.login.auditLog(limit: 1).first?.decision, .noPrompter)
    }

    /// git's libsecret credential helper (built from git's own source) stores a login with
    /// `approve` and reads it with `fill`, in later processes of the same program, with no
    /// question; the item is owned by the helper's executable.
    func testGitCredentialLibsecretReadsItsOwnLoginsSilently() throws {
        let helper = try GitCredentialHelper.build()
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        func git(_ action: String, _ input: String) throws -> ChildProcess.Output {
            try fixture.run("git", ["-c", "credential.helper=", "-c", "credential.helper=\(helper.path)", "credential", action],
                            stdin: Data(input.utf8), extraEnvironment: ["GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": nil, "SSH_ASKPASS": nil])
        }
        XCTAssertEqual(try git("approve", "protocol=https\nhost=git.example.com\nusername=ada\npassword=ghp_token\n\n").status, 0)
        let fill = try git("fill", "protocol=https\nhost=git.example.com\n\n")
        XCTAssertEqual(fill.status, 0, fill.stderrText)
        XCTAssertTrue(fill.stdoutText.contains("password=ghp_token\n"), fill.stdoutText)
        XCTAssertEqual(prompter.questions, [])
        let item = try XCTUnwrap(try fixture.login.storedItems(withAttributes: ["server": "git.example.com"]).first)
        XCTAssertEqual(item.access.owner?.executablePath, helper.path.realPathBytes)
    }

    /// A copy of secret-tool at another path is another program: what secret-tool stored and
    /// reads silently, the copy is asked about (and, denied, gets nothing).
    func testACopyOfAnAllowedExecutableIsAnotherProgram() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        let stored = try fixture.run("secret-tool", ["store", "--label=Mail", "service", "mail.example", "username", "ada"], stdin: Data("s3cret".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        XCTAssertEqual(try secretToolLookup(fixture).stdoutText, "s3cret")
        XCTAssertEqual(prompter.questions, [])

        let copy = folder.file("bin/secret-tool")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: copy.path)
        XCTAssertEqual(try secretToolLookup(fixture, copy.path).stdoutText, "")
        XCTAssertEqual(prompter.questions.count, 1)
        XCTAssertTrue(prompter.questions.allSatisfy { $0.hasPrefix("access|\(copy.path.realPathBytes.string)") }, "\(prompter.questions)")
    }

    /// An access list entry that pins the executable's SHA-256 admits that file alone: a copy of
    /// secret-tool listed with its digest reads silently; the same file changed by one byte is
    /// another program to the entry, so it is asked about, and denied gets nothing.
    func testAModifiedAllowedExecutableIsRefusedWhenTheListPinnedItsHash() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        try keyringStores(fixture)
        let tool = folder.file("bin/secret-tool")
        try FileManager.default.createDirectory(at: tool.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: tool.path)
        let digest = try XCTUnwrap(Hex.decode(String(try fixture.run("/usr/bin/sha256sum", [tool.path]).stdoutText.prefix(64))))
        try fixture.login.grant(try Program(executablePath: tool.path.realPathBytes, executableDigest: digest, executablePinned: true), to: keyringItem)
        XCTAssertEqual(try secretToolLookup(fixture, tool.path).stdoutText, "s3cret")
        XCTAssertEqual(prompter.questions, [])

        let handle = try FileHandle(forWritingTo: tool)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        XCTAssertEqual(try secretToolLookup(fixture, tool.path).stdoutText, "", "modified: not the pinned program")
        XCTAssertEqual(prompter.questions.count, 1)
        XCTAssertEqual(try fixture.login.auditLog(limit: 1).first?.decision, .denied)
    }

    /// A process that read its own item, forked and ended, leaving its connection to its child,
    /// whose PID is then given to a new process of the same program (python3 running the same
    /// script, which a PID-based identity would take for the owner): the connection gets no
    /// secret, by GetSecret (`IsLocked`) or GetSecrets (none), and the refusals are logged as an
    /// unidentified program's.
    func testAPIDReusedAfterTheAllowedProcessEndedGetsNothing() throws {
        let fixture = try fixture()
        let script = ProviderFixture.fixtures.appendingPathComponent("access_peer.py").path
        let go = folder.file("go").path, attempt = folder.file("try").path, result = folder.file("result")
        XCTAssertEqual(mkfifo(go, 0o600), 0)
        XCTAssertEqual(mkfifo(attempt, 0o600), 0)
        let client = try ChildProcess.start("/usr/bin/python3", [script, "own", go, attempt, result.path], environment: fixture.environment, inputs: [0: nil])
        defer { client.stop() }
        let first = try client.lines(1, timeout: .milliseconds(TestTiming.limit(milliseconds: 20_000)))[0]
        XCTAssertTrue(first.hasSuffix(" mine"), "the owner reads its item: \(first)")
        try Self.writeLine(to: go)
        _ = try client.wait(timeout: .seconds(10))

        let reused = try ForcedPID.start("/usr/bin/python3", [script, "idle"], pid: client.pid, awaiting: "ready")
        defer { reused.stop() }
        try Self.writeLine(to: attempt)
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: result.path), ContinuousClock.now < deadline { usleep(20_000) }
        let answers = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: result)) as? [String: Any])
        XCTAssertEqual(answers["GetSecret"] as? String, "org.freedesktop.Secret.Error.IsLocked")
        XCTAssertEqual(answers["GetSecrets"] as? Int, 0)
        let refusals = try fixture.login.auditLog(limit: 2)
        XCTAssertEqual(refusals.map(\.decision), [.denied, .denied])
        XCTAssertTrue(refusals.allSatisfy { $0.program == nil }, "\(refusals)")
    }

    /// Writes a line to the FIFO at `path` once its reader has opened it, failing after 10 s
    /// rather than waiting for a reader that died.
    private static func writeLine(to path: String) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var descriptor = open(path, O_WRONLY | O_NONBLOCK)
        while descriptor < 0, errno == ENXIO, ContinuousClock.now < deadline {
            usleep(10_000)
            descriptor = open(path, O_WRONLY | O_NONBLOCK)
        }
        guard descriptor >= 0 else { throw POSIXError(.ENXIO) }
        defer { close(descriptor) }
        XCTAssertEqual(write(descriptor, "go\n", 3), 3)
    }

    /// A bulk read by another program (a jeepney script): SearchItems with no attributes lists
    /// every item as locked, GetSecrets on all of them returns no secret, GetSecret on one is
    /// `IsLocked`; every refusal is in the log. gnome-keyring, which has no per-application
    /// access, gives the same script every secret.
    func testABulkSearchAndGetSecretsByAnotherProgramReturnsNoSecret() throws {
        let fixture = try fixture()
        for account in ["ada", "bob", "eve"] {
            let stored = try fixture.python(["-c", "import keyring.backends.SecretService as s; s.Keyring().set_password('bulk.example', '\(account)', 'pw-\(account)')"])
            XCTAssertEqual(stored.status, 0, stored.stderrText)
        }
        XCTAssertEqual(try fixture.run("secret-tool", ["store", "--label=T", "service", "tool.example", "username", "ada"], stdin: Data("pw-tool".utf8)).status, 0)
        let before = try fixture.login.auditLog().count

        let bulk = try Self.bulkRead(environment: fixture.environment)
        XCTAssertEqual(bulk.unlocked, 0)
        XCTAssertEqual(bulk.locked, 4)
        XCTAssertEqual(bulk.secrets, [], "no secret")
        XCTAssertEqual(bulk.single, "org.freedesktop.Secret.Error.IsLocked")
        let refusals = try fixture.login.auditLog().prefix(try fixture.login.auditLog().count - before)
        XCTAssertEqual(refusals.count, 5, "four in GetSecrets, one GetSecret")
        let reader = ProviderFixture.fixtures.appendingPathComponent("bulk_read.py").path.realPathBytes
        XCTAssertTrue(refusals.allSatisfy { $0.decision == .denied && $0.action == .read && $0.program?.script == reader }, "\(refusals)")
        XCTAssertEqual(Set(refusals.compactMap(\.item)).count, 4)

        // The same script against gnome-keyring, which lets every program of the user read every item.
        let bus = try PrivateBus()
        let home = folder.file("gnome-home")
        try GnomeKeyring.start(on: bus, home: home)
        var environment = bus.clientEnvironment
        environment["HOME"] = home.path
        let stored = try ChildProcess.run("/usr/bin/secret-tool", ["store", "--label=T", "service", "tool.example", "username", "ada"],
                                          environment: environment, stdin: Data("pw-tool".utf8), timeout: .seconds(30))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let keyring = try Self.bulkRead(environment: environment)
        XCTAssertEqual(keyring.secrets, ["pw-tool"], "gnome-keyring: another program reads it")
    }

    /// What Fixtures/bulk_read.py saw: how many items SearchItems listed unlocked and locked,
    /// the secrets GetSecrets gave for all of them, and GetSecret's answer for the first locked.
    private static func bulkRead(environment: [String: String?]) throws -> (unlocked: Int, locked: Int, secrets: [String], single: String) {
        let script = ProviderFixture.fixtures.appendingPathComponent("bulk_read.py").path
        let output = try ChildProcess.run("/usr/bin/python3", [script], environment: environment, timeout: .seconds(60))
        XCTAssertEqual(output.status, 0, output.stderrText)
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
        return (answer["unlocked"] as? Int ?? -1, answer["locked"] as? Int ?? -1, (answer["secrets"] as? [String] ?? []).sorted(),
                answer["single"] as? String ?? "")
    }

    /// Deleting or replacing another program's item needs the permission reading it needs:
    /// `secret-tool clear` and `secret-tool store` of python-keyring's item change nothing, and
    /// both refusals are logged.
    func testAnotherProgramCannotDeleteOrReplaceAnItem() throws {
        let fixture = try fixture()
        try keyringStores(fixture)
        let replaced = try fixture.run("secret-tool", ["store", "--label=Mine", "service", "mail.example", "username", "ada"], stdin: Data("forged".utf8))
        XCTAssertNotEqual(replaced.status, 0)
        _ = try fixture.run("secret-tool", ["clear", "service", "mail.example", "username", "ada"])
        let path = ObjectPaths.item(try fixture.login.rowKey(for: keyringItem), in: "login")
        let delete = try fixture.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path,
                                               "--method", "org.freedesktop.Secret.Item.Delete"])
        XCTAssertTrue(delete.stderrText.contains("org.freedesktop.Secret.Error.IsLocked"), delete.stderrText)
        XCTAssertEqual(try fixture.login.secret(for: keyringItem), Data("s3cret".utf8))
        let refusals = try fixture.login.auditLog().filter { $0.decision == .denied }
        XCTAssertEqual(Set(refusals.map(\.action)), [.write, .delete])
    }

    /// Renaming one's own item to another program's names never takes that item: a script
    /// (python3 running ss_calls.py, another program than python-keyring's `python3 -c`)
    /// creates its own item and sets its Attributes to python-keyring's service and user. The
    /// Set fails; python-keyring's item keeps its secret and its owner, and reads silently for
    /// it; the script's item is still its own. Before, the item was replaced and its row given
    /// to the script, which then read what python-keyring stored next.
    func testRenamingOnesOwnItemOntoAnotherProgramsItemIsRefused() throws {
        let fixture = try fixture()
        try keyringStores(fixture)
        let planted = ItemID.genericPassword(service: "rename.example", account: "planted")
        let plantedPath = ObjectPaths.item(try fixture.login.rowKey(for: planted), in: "login")
        let answers = try scriptCalls([
            SecretServiceCall("open", SecretServiceCall.service, SecretServiceCall.serviceInterface, "OpenSession", "sv", ["plain", ["variant": ["s", ""]]]),
            .createItem("create", in: "/org/freedesktop/secrets/aliases/default", attributes: ["service": "rename.example", "username": "planted"], secret: "planted", session: "$session"),
            SecretServiceCall("rename", plantedPath, SecretServiceCall.properties, "Set", "ssv", [
                SecretServiceCall.itemInterface, "Attributes", ["variant": ["a{ss}", ["service": "mail.example", "username": "ada"]]],
            ]),
        ], in: fixture)
        XCTAssertNil(answers["create"]?["error"], "its own item is made: \(answers)")
        XCTAssertEqual(answers["rename"]?["error"] as? String, "org.freedesktop.DBus.Error.InvalidArgs", "\(answers)")

        XCTAssertEqual(try fixture.login.secret(for: keyringItem), Data("s3cret".utf8))
        XCTAssertEqual(try fixture.login.access(for: keyringItem)?.owner?.executablePath, Self.python)
        XCTAssertNil(try fixture.login.access(for: keyringItem)?.owner?.script, "python-keyring's item is not the script's")
        let read = try fixture.python(["-c", "import keyring.backends.SecretService as s; print(s.Keyring().get_password('mail.example', 'ada'))"])
        XCTAssertEqual(read.stdoutText, "s3cret\n", read.stderrText)
        XCTAssertEqual(try fixture.login.access(for: planted)?.owner?.script, Self.scriptCallsPath.realPathBytes)
    }

    /// What Fixtures/prompt_client.py answered for an `Unlock` of `paths` and its prompt.
    private func unlockItems(_ paths: [String], in fixture: ProviderFixture) throws -> [String: Any] {
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("prompt_client.py").path, "items"] + paths)
        XCTAssertEqual(output.status, 0, output.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
    }

    /// Fixtures/ss_calls.py run as a script file (python3 and that script: another program than
    /// python-keyring's `python3 -c`, which `ProviderFixture.calls` is), with `calls` on stdin.
    private static let scriptCallsPath = ProviderFixture.fixtures.appendingPathComponent("ss_calls.py").path

    private func scriptCalls(_ calls: [SecretServiceCall], in fixture: ProviderFixture) throws -> [String: [String: Any]] {
        let encoded = try JSONSerialization.data(withJSONObject: calls.map { [$0.name, $0.path, $0.interface, $0.method, $0.signature, $0.arguments] })
        let output = try fixture.python([Self.scriptCallsPath, "-"], stdin: encoded)
        XCTAssertEqual(output.status, 0, output.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: [String: Any]], output.stdoutText)
    }

    /// How many secrets one `GetSecrets` of `paths` in a plain session returned.
    private func secretsCount(_ paths: [String], in fixture: ProviderFixture) throws -> Int? {
        let answers = try scriptCalls([
            SecretServiceCall("open", SecretServiceCall.service, SecretServiceCall.serviceInterface, "OpenSession", "sv", ["plain", ["variant": ["s", ""]]]),
            SecretServiceCall("get", SecretServiceCall.service, SecretServiceCall.serviceInterface, "GetSecrets", "aoo", [paths, "$session"]),
        ], in: fixture)
        return ((answers["get"]?["reply"] as? [Any])?.first as? [String: Any])?.count
    }

    /// One call that names another program's item many times is one object: `Unlock` of it 25
    /// times asks the person once, and `GetSecrets` of it 12,000 times logs one refusal (before,
    /// 25 questions, and 12,000 entries that pushed every earlier one out of the log).
    func testAnItemNamedManyTimesInOneCallIsAskedAndLoggedOnce() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        try keyringStores(fixture)
        let path = ObjectPaths.item(try fixture.login.rowKey(for: keyringItem), in: "login")
        let unlocked = try unlockItems(Array(repeating: path, count: 25), in: fixture)
        XCTAssertEqual(unlocked["dismissed"] as? Bool, true, "denied")
        XCTAssertEqual(prompter.questions.count, 1, "\(prompter.questions)")
        let earlier = try fixture.login.auditLog()
        XCTAssertEqual(try secretsCount(Array(repeating: path, count: 12_000), in: fixture), 0)
        let entries = try fixture.login.auditLog()
        XCTAssertEqual(entries.count - earlier.count, 1, "one refusal")
        XCTAssertEqual(Array(entries.suffix(earlier.count)), earlier, "the earlier entries are all kept (the log lists the newest first)")
        XCTAssertTrue(earlier.contains { $0.action == .write }, "python-keyring's store among them")
    }

    /// The first refusal ends an `Unlock`'s questions: of three items of another program, the
    /// person who denies the first is not asked about the others; who allows each is asked about
    /// each. At most 16 items are asked about in one `Unlock`.
    func testARefusalEndsTheQuestionsOfAnUnlock() throws {
        let prompter = try AccessPrompter(in: folder)
        let fixture = try fixture(prompter: prompter)
        var paths: [String] = []
        for account in (0..<20).map({ "user\($0)" }) {
            let stored = try fixture.python(["-c", "import keyring.backends.SecretService as s; s.Keyring().set_password('many.example', '\(account)', 'pw')"])
            XCTAssertEqual(stored.status, 0, stored.stderrText)
            paths.append(ObjectPaths.item(try fixture.login.rowKey(for: .genericPassword(service: "many.example", account: account)), in: "login"))
        }
        XCTAssertEqual(try unlockItems(Array(paths.prefix(3)), in: fixture)["dismissed"] as? Bool, true)
        XCTAssertEqual(prompter.questions.count, 1, "\(prompter.questions)")
        try prompter.answer("once")
        XCTAssertEqual(try unlockItems(paths, in: fixture)["dismissed"] as? Bool, false)
        XCTAssertEqual(prompter.questions.count, 1 + 16, "16 asked about, the other 4 left locked")
    }

    /// Deleting a collection deletes every item in it, so a program may do it only if it may
    /// delete each: python3 (`-c`) makes a collection with an item; another program (python3
    /// running ss_calls.py) is refused `Delete` (`AccessDenied`), and the collection and its
    /// item stay; its owner deletes it. Before, any program deleted it, items and all.
    func testAnotherProgramCannotDeleteACollectionHoldingItsItems() throws {
        let fixture = try fixture()
        let jeepney = """
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            c = open_dbus_connection(bus="SESSION")
            def call(path, interface, method, signature, body):
                reply = c.send_and_get_reply(new_method_call(DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface), method, signature, body), timeout=30)
                if reply.header.message_type.name == "error": raise SystemExit(reply.header.fields[4])
                return reply.body
            service = ("/org/freedesktop/secrets", "org.freedesktop.Secret.Service")

            """
        let create = jeepney + """
            session = call(*service, "OpenSession", "sv", ("plain", ("s", "")))[1]
            collection = call(*service, "CreateCollection", "a{sv}s", ({"org.freedesktop.Secret.Collection.Label": ("s", "Work")}, ""))[0]
            attributes = {"service": "work.example", "username": "ada"}
            properties = {"org.freedesktop.Secret.Item.Label": ("s", "Work"), "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
            call(collection, "org.freedesktop.Secret.Collection", "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", b"work secret", "text/plain"), False))
            print(collection)
            """
        let created = try fixture.python(["-c", create])
        XCTAssertEqual(created.status, 0, created.stderrText)
        let collection = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let calls = try JSONSerialization.data(withJSONObject: [
            ["delete", collection, "org.freedesktop.Secret.Collection", "Delete", "", [] as [Any]],
            ["listed", "/org/freedesktop/secrets", "org.freedesktop.DBus.Properties", "Get", "ss", ["org.freedesktop.Secret.Service", "Collections"]],
        ])
        let attempt = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("ss_calls.py").path, "-"], stdin: calls)
        XCTAssertEqual(attempt.status, 0, attempt.stderrText)
        XCTAssertTrue(attempt.stdoutText.contains(#""delete": {"error": "org.freedesktop.DBus.Error.AccessDenied"}"#), attempt.stdoutText)
        XCTAssertTrue(attempt.stdoutText.contains(collection), "still listed: \(attempt.stdoutText)")

        let deleted = try fixture.python(["-c", jeepney + "call(\"\(collection)\", \"org.freedesktop.Secret.Collection\", \"Delete\", None, ())"])
        XCTAssertEqual(deleted.status, 0, "its owner deletes it: \(deleted.stderrText)")
    }

    /// Under `strict`, another program's item is not listed at all (a lookup finds nothing and
    /// nobody is asked); under `open`, every program reads it with no question, as before
    /// per-application access, and the log says `open`.
    func testStrictHidesAndOpenShowsAnotherProgramsItem() throws {
        let prompter = try AccessPrompter(in: folder)
        try prompter.answer("always")
        let strict = try fixture(.strict, prompter: prompter)
        try keyringStores(strict)
        XCTAssertEqual(try secretToolLookup(strict).stdoutText, "")
        let search = try strict.run("secret-tool", ["search", "--all", "service", "mail.example"])
        XCTAssertFalse(search.stdoutText.contains("mail.example") || search.stderrText.contains("mail.example"), search.stdoutText + search.stderrText)
        XCTAssertEqual(prompter.questions, [])
        XCTAssertEqual(try strict.login.access(for: keyringItem)?.allowed, [])

        let open = try fixture(.open, prompter: prompter)
        try keyringStores(open)
        XCTAssertEqual(try secretToolLookup(open).stdoutText, "s3cret")
        XCTAssertEqual(prompter.questions, [])
        XCTAssertEqual(try open.login.auditLog(limit: 1).first?.decision, .open)
    }
}

private extension [UInt8] {
    var string: String { String(decoding: self, as: UTF8.self) }
}
