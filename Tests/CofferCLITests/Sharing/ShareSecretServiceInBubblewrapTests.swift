import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// `coffer agent start --secret-service --upstream SOCKET` in a bubblewrap sandbox that has only
/// a share's socket bound in and a bus of its own (dbus-run-session inside): unmodified
/// `secret-tool`, python-keyring and secretstorage there see exactly the share's items, and
/// nothing outside it (docs/secret-service.md, "Inside a sandbox").
final class ShareSecretServiceInBubblewrapTests: ShareTestCase {
    private struct Run: Decodable {
        let status: Int
        let stdout: String
        let stderr: String
    }

    private struct KeyringAnswer: Decodable {
        let value: String?
        let error: String?
        let stored: Bool?
    }

    private struct ReadOnly: Decodable {
        let start, granted, other, granted_search, other_search, overwrite, new_item, clear, after_writes: Run
        let items: [[String: String]]
        let keyring_granted, keyring_other, keyring_write: KeyringAnswer
    }

    private struct ReadWrite: Decodable {
        let written, read_back, outside: Run
        let keyring_write: KeyringAnswer
    }

    private struct Unshared: Decodable {
        let gone, search, collections, overwrite: Run
        let seconds: Double
        let keyring: KeyringAnswer
    }

    private struct SharedAgain: Decodable {
        let granted: Run
    }

    private var control: URL { folder.file("control") }

    /// The sandbox: the system read-only, Coffer's binaries, the share's folder, the fixture and
    /// a control folder (where the test says when it has changed the share), no network;
    /// dbus-run-session runs the fixture on a bus of the sandbox's own.
    private func startSandbox() throws -> ChildProcess {
        for tool in ["/usr/bin/bwrap", "/usr/bin/dbus-run-session", "/usr/bin/secret-tool", "/usr/bin/dbus-send"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw MissingPrerequisite.error("\(tool) is missing (Debian: bubblewrap, dbus, libsecret-tools; scripts/bootstrap.sh test)")
        }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/upstream_sandbox.py")
        XCTAssertEqual(mkdir(control.path, 0o700), 0)
        var arguments = [
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--tmpfs", "/home/sandbox", "--ro-bind", BuiltProducts.folder.path, "/opt/coffer", "--bind", shareFolder.path, "/run/share",
            "--bind", control.path, "/run/control", "--ro-bind", fixture.path, "/opt/fixture/upstream_sandbox.py",
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "HOME", "/home/sandbox", "--setenv", "PATH", "/opt/coffer:/usr/bin:/bin",
        ]
        if FileManager.default.fileExists(atPath: "/opt/swift") { arguments += ["--ro-bind", "/opt/swift", "/opt/swift"] }
        arguments += [
            "/usr/bin/dbus-run-session", "--", "/usr/bin/python3", "/opt/fixture/upstream_sandbox.py", "/run/share/s.sock", "/run/control",
        ]
        return try ChildProcess.start("/usr/bin/bwrap", arguments, environment: [:], newProcessGroup: true)
    }

    /// The next phase's report from the sandbox.
    private func next<Report: Decodable>(_ type: Report.Type, of sandbox: ChildProcess, phase: Int) throws -> Report {
        let lines = try sandbox.lines(phase, timeout: .seconds(120))
        return try JSONDecoder().decode(Report.self, from: Data(lines[phase - 1].utf8))
    }

    private func goOn(to phase: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: control.appendingPathComponent(phase).path, contents: Data()))
    }

    /// Item X (`granted/alice`) is read by secret-tool and python-keyring; item Y (`other/bob`,
    /// the same user's, not shared) is found by neither; secretstorage lists the share's items
    /// alone. A write or a clear through the read-only share is refused with a D-Bus error and
    /// changes nothing; through a `--read-write` share, secret-tool's and python-keyring's writes
    /// land in the user's vault. Once unshared, X is
    /// gone within 10 s while the provider keeps answering (the collection reads locked, not
    /// empty), and it comes back with a new share.
    func testSecretServiceClientsInASandboxSeeOnlyTheSharedItems() throws {
        try prepareVaults()
        try share(["--service", "granted"])
        let sandbox = try startSandbox()
        defer { sandbox.stop() }

        let readOnly = try next(ReadOnly.self, of: sandbox, phase: 1)
        XCTAssertEqual(readOnly.start.status, 0, readOnly.start.stderr)
        XCTAssertEqual(readOnly.granted.stdout, "shared secret", readOnly.granted.stderr)
        XCTAssertEqual(readOnly.other.status, 1, "Y is not found: \(readOnly.other.stderr)")
        XCTAssertEqual(readOnly.other.stdout, "")
        // secret-tool prints an item's path, label, secret and dates on stdout, its attributes on stderr.
        let searched = readOnly.granted_search.stdout + readOnly.granted_search.stderr
        XCTAssertEqual(readOnly.granted_search.stdout.split(separator: "\n").filter { $0.hasPrefix("[/") }.count, 1, "one item: \(searched)")
        XCTAssertTrue(searched.contains("attribute.username = alice"), searched)
        XCTAssertTrue(searched.contains("secret = shared secret"), searched)
        XCTAssertEqual(readOnly.other_search.stdout + readOnly.other_search.stderr, "", "nothing of Y's service")
        XCTAssertEqual(readOnly.items, [["service": "granted", "username": "alice"]], "the collection holds the share's item alone")
        XCTAssertEqual(readOnly.keyring_granted.value, "shared secret", readOnly.keyring_granted.error ?? "")
        XCTAssertNil(readOnly.keyring_other.value)
        XCTAssertNil(readOnly.keyring_other.error, "Y is simply not there for python-keyring")

        for refused in [readOnly.overwrite, readOnly.new_item] {
            XCTAssertEqual(refused.status, 1, "secret-tool store through a read-only share")
            XCTAssertTrue(refused.stderr.contains("does not let this item be written"), refused.stderr)
        }
        XCTAssertNotNil(readOnly.keyring_write.error, "keyring.set_password through a read-only share fails")
        XCTAssertEqual(readOnly.clear.status, 1, "secret-tool clear through a read-only share")
        XCTAssertTrue(readOnly.clear.stderr.contains("does not let this item be written"), readOnly.clear.stderr)
        XCTAssertEqual(readOnly.after_writes.stdout, "shared secret")
        XCTAssertEqual(try coffer(["get", "granted", "alice"]).stdoutText, "shared secret", "nothing changed upstream")
        XCTAssertEqual(try coffer(["get", "granted", "dave"]).exitStatus, .notFound)
        XCTAssertEqual(try coffer(["get", "granted", "erin"]).exitStatus, .notFound)

        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0)
        try share(["--service", "granted", "--read-write"])
        goOn(to: "read-write")
        let readWrite = try next(ReadWrite.self, of: sandbox, phase: 2)
        XCTAssertEqual(readWrite.written.status, 0, readWrite.written.stderr)
        XCTAssertEqual(readWrite.read_back.stdout, "written inside")
        XCTAssertEqual(readWrite.keyring_write.stored, true, readWrite.keyring_write.error ?? "")
        XCTAssertEqual(readWrite.outside.status, 1, "outside the grant even when read-write")
        XCTAssertEqual(try coffer(["get", "granted", "carol", "--no-agent"]).stdoutText, "written inside", "in the user's vault")
        XCTAssertEqual(try coffer(["get", "granted", "frank", "--no-agent"]).stdoutText, "via keyring")
        XCTAssertEqual(try coffer(["get", "other", "carol", "--no-agent"]).exitStatus, .notFound)

        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0)
        goOn(to: "unshared")
        let unshared = try next(Unshared.self, of: sandbox, phase: 3)
        XCTAssertEqual(unshared.gone.status, 1, "X is gone: \(unshared.gone.stderr)")
        XCTAssertEqual(unshared.gone.stdout, "")
        XCTAssertLessThan(unshared.seconds, 10)
        XCTAssertEqual(unshared.search.stdout + unshared.search.stderr, "")
        XCTAssertNotEqual(unshared.search.status, -1, "search answers")
        XCTAssertEqual(unshared.keyring.error, "KeyringLocked", "python-keyring is told the collection is locked, not that X is missing")
        XCTAssertEqual(unshared.collections.status, 0, "the provider still answers: \(unshared.collections.stderr)")
        XCTAssertTrue(unshared.collections.stdout.contains("/org/freedesktop/secrets/collection/login"), unshared.collections.stdout)
        XCTAssertEqual(unshared.overwrite.status, 1)

        try share(["--service", "granted"])
        goOn(to: "shared-again")
        let again = try next(SharedAgain.self, of: sandbox, phase: 4)
        XCTAssertEqual(again.granted.stdout, "shared secret", again.granted.stderr)
        let ended = try sandbox.wait(timeout: .seconds(30))
        XCTAssertEqual(ended.status, 0, ended.stderrText)
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0)
    }
}
