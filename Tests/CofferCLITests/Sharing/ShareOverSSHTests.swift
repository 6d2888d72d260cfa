import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// `coffer agent share` forwarded to another host's account with `ssh -R`, as ssh-agent's socket
/// is: a loopback sshd of the test's own (its own config, host key and authorized key; no system
/// sshd or config touched) lets a second user, standing for the remote account, log in and run
/// Coffer's tools with the forwarded socket as their agent (docs/security.md, "Sharing with
/// sandboxes and other hosts").
///
/// The second user is `coffer-share-test`, a system account (no password that can be used, `*`;
/// a home in the test's folder) made by the test when it does not exist and removed after: a
/// dedicated name, so nothing of a real account is touched on a fresh CI machine.
final class ShareOverSSHTests: ShareTestCase {
    private static let remoteUser = "coffer-share-test"
    /// The folder the remote user reaches: its home, and the sshd's authorized key (0755, root's).
    private var remoteFolder: URL?
    private var sshd: ChildProcess?
    private var madeUser = false

    override func tearDown() {
        sshd?.stop()
        if madeUser { _ = try? ChildProcess.run("/usr/sbin/userdel", [Self.remoteUser]) }
        if let remoteFolder { try? FileManager.default.removeItem(at: remoteFolder) }
        super.tearDown()
    }

    /// Item X read on the other host, item Y and everything else of the user's not found there,
    /// writes refused while read-only, no management, and the share ends at unshare and on time.
    func testAnotherHostOverSSHReachesOnlyTheGrantedItems() throws {
        let (runFolder, inside) = try overSSH()
        try checkShare(socketInside: runFolder.appendingPathComponent("s.sock").path, home: runFolder.deletingLastPathComponent().path, inside)
    }

    /// A profile's share forwarded to the other host: the remote account (another uid) gets the
    /// profile's tokens, a refreshed one after it expires, and nothing else; after unshare, none
    /// (``ShareTestCase/checkProfileShare(socketInside:home:file:line:_:)``).
    func testAnotherHostOverSSHGetsOnlyTheSharedProfilesTokens() async throws {
        let (runFolder, inside) = try overSSH()
        _ = try BuiltProducts.executableForOtherUsers("coffer-auth")
        try await checkProfileShare(socketInside: runFolder.appendingPathComponent("s.sock").path, home: runFolder.deletingLastPathComponent().path, inside)
    }

    /// The remote side, and what runs a command there as the remote user with the share's
    /// socket forwarded into its run folder (returned).
    private func overSSH() throws -> (runFolder: URL, inside: Inside) {
        for tool in ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/sbin/useradd"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw MissingPrerequisite.error("\(tool) is missing (Debian packages openssh-server, openssh-client, passwd; scripts/bootstrap.sh test)")
        }
        guard geteuid() == 0 else { throw XCTSkip("the remote account is a second user, which only root can make and become") }
        let remote = try makeRemoteSide()
        let coffer = try BuiltProducts.executableForOtherUsers("coffer").deletingLastPathComponent()
        for helper in ["docker-credential-coffer", "git-credential-coffer", "coffer-test-helper"] { _ = try BuiltProducts.executableForOtherUsers(helper) }
        let shareSocket = shareSocket.path
        return (remote.home.appendingPathComponent("run"), { command, environment, stdin in
            let assignments = environment.merging(["PATH": coffer.path + ":/usr/bin:/bin"]) { $1 }.map { "\($0)=\(Self.quoted($1))" }
            let remoteCommand = (["env", "-i"] + assignments + command.map(Self.quoted)).joined(separator: " ")
            return try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ssh"), remote.sshOptions + [
                "-R", "\(environment["COFFER_AGENT_SOCKET"] ?? ""):\(shareSocket)",
                "\(Self.remoteUser)@127.0.0.1", remoteCommand,
            ], environment: [:], stdin: stdin)
        })
    }

    private struct RemoteSide {
        let home: URL
        let sshOptions: [String]
    }

    /// The second user, the sshd on a free loopback port, and the ssh options that reach it.
    private func makeRemoteSide() throws -> RemoteSide {
        var template = Array("/tmp/coffer-ssh-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw MissingPrerequisite.error("cannot make a folder in /tmp") }
        let base = URL(fileURLWithPath: String(cString: made))
        remoteFolder = base
        chmod(base.path, 0o755)
        let home = base.appendingPathComponent("home")
        if (try? ChildProcess.run("/usr/bin/id", ["-u", Self.remoteUser]))?.status != 0 {
            let added = try ChildProcess.run(
                "/usr/sbin/useradd", ["--system", "--no-create-home", "--home-dir", home.path, "--shell", "/bin/sh", "-p", "*", Self.remoteUser])
            XCTAssertEqual(added.status, 0, added.stderrText)
            madeUser = true
        }
        XCTAssertEqual(try ChildProcess.run("/usr/bin/install", ["-d", "-m", "0700", "-o", Self.remoteUser, home.path]).status, 0)
        XCTAssertEqual(
            try ChildProcess.run("/usr/bin/install", ["-d", "-m", "0700", "-o", Self.remoteUser, home.appendingPathComponent("run").path]).status, 0)
        let keys = folder.file("ssh")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        for name in ["host_key", "client_key"] {
            let generated = try ChildProcess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", keys.appendingPathComponent(name).path])
            XCTAssertEqual(generated.status, 0, generated.stderrText)
        }
        let authorized = base.appendingPathComponent("authorized_keys")
        try FileManager.default.copyItem(at: keys.appendingPathComponent("client_key.pub"), to: authorized)
        chmod(authorized.path, 0o644)
        let port = try LoopbackPort.free()
        let config = keys.appendingPathComponent("sshd_config")
        // StrictModes off: the authorized key lies under /tmp, whose mode (1777) it refuses.
        try """
            ListenAddress 127.0.0.1:\(port)
            HostKey \(keys.appendingPathComponent("host_key").path)
            PidFile none
            AuthorizedKeysFile \(authorized.path)
            StrictModes no
            AllowUsers \(Self.remoteUser)
            UsePAM no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin no
            AllowStreamLocalForwarding yes
            StreamLocalBindUnlink yes
            X11Forwarding no
            """.write(to: config, atomically: true, encoding: .utf8)
        // sshd needs its privilege separation folder, which the package makes only when its service runs.
        if !FileManager.default.fileExists(atPath: "/run/sshd") { mkdir("/run/sshd", 0o755) }
        sshd = try ChildProcess.start("/usr/sbin/sshd", ["-D", "-e", "-f", config.path], environment: [:])
        let hostKey = try String(contentsOf: keys.appendingPathComponent("host_key.pub"), encoding: .utf8)
        let knownHosts = keys.appendingPathComponent("known_hosts")
        try "[127.0.0.1]:\(port) \(hostKey)".write(to: knownHosts, atomically: true, encoding: .utf8)
        let options = [
            "-F", "/dev/null", "-p", "\(port)", "-i", keys.appendingPathComponent("client_key").path, "-o", "IdentitiesOnly=yes",
            "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=\(knownHosts.path)",
            "-o", "ExitOnForwardFailure=yes", "-o", "ConnectTimeout=10", "-o", "StreamLocalBindUnlink=yes",
        ]
        // Until the sshd answers (bounded).
        for _ in 0..<100 {
            if try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ssh"), options + ["\(Self.remoteUser)@127.0.0.1", "true"], environment: [:]).status == 0 {
                break
            }
            usleep(100_000)
        }
        let reached = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ssh"), options + ["\(Self.remoteUser)@127.0.0.1", "id -u"], environment: [:])
        XCTAssertEqual(reached.status, 0, reached.stderrText)
        return RemoteSide(home: home, sshOptions: options)
    }

    /// `text` as one word for the remote account's shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
