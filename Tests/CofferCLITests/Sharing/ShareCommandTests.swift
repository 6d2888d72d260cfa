import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent share` and `unshare` on this host: a program's share, and what the commands
/// refuse (docs/agent.md, section 10).
final class ShareCommandTests: CLITestCase, BrokerLogins {
    private var shareSocket: URL { folder.file("share/s.sock") }
    var server: OIDCTestServer!

    override class func tearDown() {
        OIDCTestServer.stopShared()
        super.tearDown()
    }

    /// A profile's share that ends while the provider holds the agent's refresh for a client of
    /// the share hands that client no token: `unshare` returns once the refresh is done, and the
    /// client's `coffer token` fails with nothing printed. The agent kept the rotation: the next
    /// `coffer token` here has a token with no other refresh.
    ///
    /// The provider holds the refresh 12 s, longer than `unshare` once waited for the agent's
    /// answer (10 s), and shorter than the agent's HTTP timeout (30 s): `unshare` waits for it.
    func testAProfilesShareEndedMidRefreshHandsOutNoToken() async throws {
        let delay = 12
        server = try provider(["--refresh-delay", "\(delay)"])
        try initVault()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        try await login(profile: "work")
        XCTAssertEqual(mkdir(folder.file("share").path, 0o700), 0)
        XCTAssertEqual(try coffer(["agent", "share", "--socket", shareSocket.path, "--profile", "work"]).status, 0)
        usleep(Self.expiry)
        let counted = try await server.refreshCount()
        let through: [String: String?] = ["COFFER_AGENT_SOCKET": shareSocket.path, "COFFER_PASSPHRASE": nil, "COFFER_VAULT": folder.file("none.vault").path]
        let waiting = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["token", "--profile", "work"], environment: baseEnvironment.merging(through) { $1 })
        let held = try await refreshArrives(after: counted, within: delay)
        XCTAssertTrue(held, "the refresh reached the provider")
        let unshared = try coffer(["agent", "unshare", shareSocket.path])
        XCTAssertEqual(unshared.status, 0, unshared.stderrText)
        let orphaned = try waiting.wait(timeout: .seconds(30))
        XCTAssertNotEqual(orphaned.status, 0, "the share's client gets no token once the share has ended")
        XCTAssertTrue(orphaned.stdout.isEmpty, "it printed \(orphaned.stdout.count) bytes")

        let here = try coffer(["token", "--profile", "work"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(here.status, 0, here.stderrText)
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 1, "the rotation the share's refresh got was kept")
        XCTAssertEqual(after.refused, counted.refused)
    }

    /// `--program` shares the items that program owns: `coffer`'s item is read through the
    /// share, the item docker's helper stored (its owner) is not found.
    func testAProgramsShareServesTheItemsItOwns() throws {
        try initVault()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        // Stored through the agent, so that each item's owner is the program that stored it.
        XCTAssertEqual(try coffer(["set", "granted", "alice"], stdin: Data("coffer's".utf8), environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        let docker = try ChildProcess.run(
            BuiltProducts.executable("docker-credential-coffer"), ["store"], environment: baseEnvironment.merging(["COFFER_PASSPHRASE": nil]) { $1 },
            stdin: Data(#"{"ServerURL":"registry.example","Username":"robot","Secret":"docker's"}"#.utf8))
        XCTAssertEqual(docker.status, 0, docker.stderrText)
        XCTAssertEqual(mkdir(folder.file("share").path, 0o700), 0)
        let shared = try coffer(["agent", "share", "--socket", shareSocket.path, "--program", BuiltProducts.executable("coffer").path])
        XCTAssertEqual(shared.status, 0, shared.stderrText)
        XCTAssertTrue(shared.stdoutText.hasPrefix("sharing read-only at \(shareSocket.path) until "), shared.stdoutText)

        let through: [String: String?] = ["COFFER_AGENT_SOCKET": shareSocket.path, "COFFER_PASSPHRASE": nil, "COFFER_VAULT": folder.file("none.vault").path]
        XCTAssertEqual(try coffer(["get", "granted", "alice"], environment: through).stdoutText, "coffer's")
        let listed = try coffer(["list", "--json"], environment: through)
        XCTAssertTrue(listed.stdoutText.contains("alice") && !listed.stdoutText.contains("registry"), listed.stdoutText)
        let fromDocker = try ChildProcess.run(
            BuiltProducts.executable("docker-credential-coffer"), ["get"], environment: baseEnvironment.merging(through) { $1 },
            stdin: Data("registry.example".utf8))
        XCTAssertNotEqual(fromDocker.status, 0, "docker's item is another program's")
        XCTAssertFalse(fromDocker.stdoutText.contains("docker's"))
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).stdoutText, "the share at \(shareSocket.path) has ended\n")
    }

    /// Another user reaches nothing through a share, whatever the user opens by mistake: with the
    /// share's folders opened to others, the socket is the user's alone (0600), so the connect is
    /// refused; and with the socket opened too, the share answers another uid only with the
    /// agent's refusal (`SO_PEERCRED`), as the agent's own socket does. `coffer get` as that user
    /// prints nothing of the item.
    func testAnotherUserReachesNothingThroughAShare() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to connect as nobody (uid 65534)") }
        try initVault()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        XCTAssertEqual(try coffer(["set", "granted", "alice"], stdin: Data("s3cret".utf8), environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        XCTAssertEqual(mkdir(folder.file("share").path, 0o700), 0)
        let shared = try coffer(["agent", "share", "--socket", shareSocket.path, "--service", "granted"])
        XCTAssertEqual(shared.status, 0, shared.stderrText)
        for opened in [folder.url, folder.file("share")] { XCTAssertEqual(chmod(opened.path, 0o755), 0, "opened to others, by mistake") }
        var info = stat()
        XCTAssertEqual(stat(shareSocket.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "the share's socket is the user's alone")

        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let helper = try BuiltProducts.executableForOtherUsers("coffer-test-helper").path
        let refused = try ChildProcess.run(nobody[0], Array(nobody[1...]) + [helper, "ping-reply", shareSocket.path])
        XCTAssertEqual(refused.status, 1, "the connect is refused: \(refused.stdoutText)")
        XCTAssertEqual(refused.stdoutText, "")
        let get = try ChildProcess.run(
            nobody[0], Array(nobody[1...]) + [try BuiltProducts.executableForOtherUsers("coffer").path, "get", "granted", "alice"],
            environment: ["COFFER_AGENT_SOCKET": shareSocket.path, "HOME": "/nonexistent", "COFFER_VAULT": "/nonexistent/v.vault"])
        XCTAssertNotEqual(get.status, 0)
        XCTAssertFalse(get.stdoutText.contains("s3cret") || get.stderrText.contains("s3cret"))

        XCTAssertEqual(chmod(shareSocket.path, 0o666), 0, "the socket opened to everyone, by mistake")
        let answered = try ChildProcess.run(nobody[0], Array(nobody[1...]) + [helper, "ping-reply", shareSocket.path])
        XCTAssertEqual(answered.stdoutText, "error: invalid argument: this agent serves only its own user\n", "status \(answered.status) \(answered.stderrText)")
        XCTAssertEqual(chmod(folder.url.path, 0o700), 0, "the vault's folder private again, for coffer")
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0)
    }

    /// The help of a duration option (share's and unlock's `--for`, agent start's
    /// `--idle-timeout`) names its default once, as a duration one would type.
    func testDurationOptionsShowTheirDefaultAsADuration() throws {
        for (command, option, shown) in [
            (["agent", "share"], "--for <duration>", "(default: 1h)"), (["unlock"], "--for <duration>", "(default: 1h)"),
            (["agent", "start"], "--idle-timeout <duration>", "(default: 15m)"),
        ] {
            let help = try coffer(command + ["--help"])
            XCTAssertEqual(help.status, 0, help.stderrText)
            let options = help.stdoutText.components(separatedBy: "\n  --").filter { $0.hasPrefix(option.dropFirst(2)) }
            let text = try XCTUnwrap(options.first, help.stdoutText).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(text.hasSuffix(shown), text)
            XCTAssertEqual(text.components(separatedBy: "default").count, 2, "the default is named once: \(text)")
        }
    }

    /// A share needs a vault the agent holds, one kind of grant and a time within a day; a
    /// profile's share takes no item's terms and is never read-write; an unshare needs a share.
    func testWhatShareAndUnshareRefuse() throws {
        try initVault()
        try startAgent()
        let socket = ["agent", "share", "--socket", shareSocket.path]
        XCTAssertEqual(try coffer(socket + ["--service", "s"]).exitStatus, .locked, "the agent does not hold the vault")
        XCTAssertEqual(try coffer(socket + ["--service", "s", "--program", "/usr/bin/app"]).exitStatus, .usage)
        XCTAssertEqual(try coffer(socket).exitStatus, .usage, "neither a service nor a program")
        XCTAssertEqual(try coffer(socket + ["--program", "/usr/bin/app", "--account", "a"]).exitStatus, .usage)
        XCTAssertEqual(try coffer(socket + ["--service", "s", "--for", "25h"]).exitStatus, .usage)
        for profileShare in [
            ["--profile", "work", "--service", "s"], ["--profile", "work", "--program", "/usr/bin/app"], ["--profile", "work", "--account", "a"],
            ["--profile", "work", "--internet"], ["--profile", "work", "--read-write"], ["--profile", "a b"], ["--profile", "work", "--for", "25h"],
        ] {
            let refused = try coffer(socket + profileShare)
            XCTAssertEqual(refused.exitStatus, .usage, "\(profileShare): \(refused.stderrText)")
        }
        XCTAssertEqual(try coffer(socket + ["--profile", "work"]).exitStatus, .locked, "the agent does not hold the vault")
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).exitStatus, .usage, "no share there")
        XCTAssertFalse(FileManager.default.fileExists(atPath: shareSocket.path))
    }
}
