import Coffer
import CofferAgentWire
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// What every sharing test checks through its own way in (a sandbox, another host, a
/// container): a share of one service serves that service's item and nothing else of the user's,
/// refuses a write while read-only, manages no agent, and ends at `unshare` and on time.
///
/// The user's vault holds `granted/alice` (the share's), `other/bob`, and internet passwords for
/// `registry.example` (docker's) and `https://git.example` (git's); a second vault the agent also holds has its own
/// `granted/alice`. Inside, the programs see only the share's socket.
class ShareTestCase: CLITestCase, BrokerLogins {
    /// The OpenID provider of a profile's share (``checkProfileShare(socketInside:home:file:line:_:)``).
    var server: OIDCTestServer!

    override class func tearDown() {
        OIDCTestServer.stopShared()
        super.tearDown()
    }

    /// The second vault the agent holds: a share of the first must not reach it.
    var otherVault: URL { folder.file("other.vault") }
    /// The folder that holds the shares' sockets (0700, as any agent socket's).
    var shareFolder: URL { folder.file("share") }
    var shareSocket: URL { shareFolder.appendingPathComponent("s.sock") }

    /// Runs a command where the share is reached, with `environment` as its whole environment
    /// there (COFFER_AGENT_SOCKET is set to the share's path on that side).
    typealias Inside = (_ command: [String], _ environment: [String: String], _ stdin: Data) throws -> ChildProcess.Output

    /// Makes both vaults with their items, starts the agent and has it hold both.
    func prepareVaults() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "granted", "alice"], stdin: Data("shared secret".utf8)).status, 0)
        XCTAssertEqual(try coffer(["set", "other", "bob"], stdin: Data("unshared secret".utf8)).status, 0)
        let docker = try ChildProcess.run(
            BuiltProducts.executable("docker-credential-coffer"), ["store"], environment: baseEnvironment,
            stdin: Data(#"{"ServerURL":"registry.example","Username":"robot","Secret":"registry token"}"#.utf8))
        XCTAssertEqual(docker.status, 0, docker.stderrText)
        let git = try ChildProcess.run(
            BuiltProducts.executable("git-credential-coffer"), ["store"], environment: baseEnvironment,
            stdin: Data("protocol=https\nhost=git.example\nusername=ada\npassword=git password\n\n".utf8))
        XCTAssertEqual(git.status, 0, git.stderrText)
        let other = ["COFFER_VAULT": otherVault.path]
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive"], environment: other).status, 0)
        XCTAssertEqual(try coffer(["set", "granted", "alice"], stdin: Data("other vault's secret".utf8), environment: other).status, 0)
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "1h"]).status, 0)
        XCTAssertEqual(try coffer(["unlock", "--for", "1h"], environment: other).status, 0)
        XCTAssertEqual(mkdir(shareFolder.path, 0o700), 0)
    }

    /// `coffer agent share` on ``shareSocket`` with `arguments`.
    func share(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let shared = try coffer(["agent", "share", "--socket", shareSocket.path] + arguments)
        XCTAssertEqual(shared.status, 0, shared.stderrText, file: file, line: line)
    }

    /// The whole check, with commands run through `inside` and `socketInside` the share's path there.
    func checkShare(socketInside: String, home: String, file: StaticString = #filePath, line: UInt = #line, _ inside: Inside) throws {
        try prepareVaults()
        try share(["--service", "granted"], file: file, line: line)
        // No vault file inside: the client's default vault does not exist there.
        let environment = ["COFFER_AGENT_SOCKET": socketInside, "HOME": home, "PATH": "/usr/bin:/bin", "COFFER_PASSPHRASE": ""]
        func run(_ arguments: [String], stdin: Data = Data(), vault: String? = nil) throws -> ChildProcess.Output {
            var environment = environment
            if let vault { environment["COFFER_VAULT"] = vault }
            return try inside(["coffer"] + arguments, environment, stdin)
        }

        let granted = try run(["get", "granted", "alice"])
        XCTAssertEqual(granted.status, 0, granted.stderrText, file: file, line: line)
        XCTAssertEqual(granted.stdoutText, "shared secret", file: file, line: line)

        // Outside the grant: exactly what a missing item gets.
        let missing = try run(["get", "granted", "nobody"])
        let outside = try run(["get", "other", "bob"])
        XCTAssertEqual(missing.exitStatus, .notFound, missing.stderrText, file: file, line: line)
        XCTAssertEqual(outside.exitStatus, .notFound, outside.stderrText, file: file, line: line)
        XCTAssertEqual(
            outside.stderrText.replacingOccurrences(of: "other", with: "X").replacingOccurrences(of: "bob", with: "Y"),
            missing.stderrText.replacingOccurrences(of: "granted", with: "X").replacingOccurrences(of: "nobody", with: "Y"),
            file: file, line: line)
        XCTAssertFalse(outside.stdoutText.contains("unshared"), file: file, line: line)

        let listed = try run(["list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderrText, file: file, line: line)
        XCTAssertTrue(listed.stdoutText.contains("alice"), listed.stdoutText, file: file, line: line)
        XCTAssertFalse(listed.stdoutText.contains("bob") || listed.stdoutText.contains("registry"), listed.stdoutText, file: file, line: line)

        // Another vault path names the shared vault: the agent's other vault stays out of reach.
        let otherPath = try run(["get", "granted", "alice"], vault: otherVault.path)
        XCTAssertEqual(otherPath.stdoutText, "shared secret", otherPath.stderrText, file: file, line: line)

        let docker = try inside(["docker-credential-coffer", "get"], environment, Data("registry.example".utf8))
        XCTAssertNotEqual(docker.status, 0, "the internet password is outside the grant", file: file, line: line)
        XCTAssertFalse(docker.stdoutText.contains("registry token"), file: file, line: line)

        // The library's one line, unmodified: the share's item, and nothing outside it.
        let keychain = try inside(["coffer-test-helper", "keychain-get", "granted", "alice"], environment, Data())
        XCTAssertEqual(keychain.stdoutText, "shared secret", keychain.stderrText, file: file, line: line)
        let keychainOutside = try inside(["coffer-test-helper", "keychain-get", "other", "bob"], environment, Data())
        XCTAssertEqual(keychainOutside.status, 3, "Keychain(service:) outside the grant: \(keychainOutside.stderrText)", file: file, line: line)
        XCTAssertEqual(keychainOutside.stdoutText, "", file: file, line: line)

        let status = try run(["agent", "status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderrText, file: file, line: line)
        for revealing in [vault.path, otherVault.path, "cli.vault", "other.vault", "\(agent?.pid ?? -1)"] {
            XCTAssertFalse(status.stdoutText.contains(revealing), "status reveals \(revealing): \(status.stdoutText)", file: file, line: line)
        }

        let written = try run(["set", "granted", "alice"], stdin: Data("overwritten".utf8))
        XCTAssertEqual(written.exitStatus, .accessDenied, "read-only: \(written.stderrText)", file: file, line: line)
        for management in [["lock", "--all"], ["agent", "stop"], ["agent", "unshare", socketInside],
                           ["agent", "share", "--socket", socketInside + "2", "--service", "other"]] {
            let refused = try run(management)
            XCTAssertEqual(refused.exitStatus, .accessDenied, "\(management) through the share: \(refused.stdoutText)", file: file, line: line)
        }
        XCTAssertEqual(try coffer(["get", "granted", "alice"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "shared secret",
                       "the agent still holds the vault, unchanged", file: file, line: line)
        XCTAssertEqual(try coffer(["get", "other", "bob"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "unshared secret",
                       file: file, line: line)

        // unshare: the socket goes, a connection held open on it closes, and inside nothing answers.
        let held = try AgentSocket.connect(path: shareSocket.path, timeout: .seconds(5))
        defer { close(held) }
        // Served and kept open (identify), so that the close below is the share's doing.
        XCTAssertTrue(AgentSocket.write(AgentRequest.identify.message, to: held), file: file, line: line)
        XCTAssertNotNil(AgentSocket.read(from: held), "the share answers identify", file: file, line: line)
        let unshared = try coffer(["agent", "unshare", shareSocket.path])
        XCTAssertEqual(unshared.status, 0, unshared.stderrText, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: shareSocket.path), "the socket is removed", file: file, line: line)
        var byte: UInt8 = 0
        XCTAssertEqual(recv(held, &byte, 1, 0), 0, "the open connection was closed", file: file, line: line)
        XCTAssertNotEqual(try run(["get", "granted", "alice"]).status, 0, "after unshare", file: file, line: line)

        // A share for a short time ends by itself.
        try share(["--service", "granted", "--for", "2s"], file: file, line: line)
        XCTAssertEqual(try run(["get", "granted", "alice"]).stdoutText, "shared secret", file: file, line: line)
        let ended = ContinuousClock.now + .seconds(15)
        while FileManager.default.fileExists(atPath: shareSocket.path), ContinuousClock.now < ended { usleep(100_000) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: shareSocket.path), "the share ended on time", file: file, line: line)
        XCTAssertNotEqual(try run(["get", "granted", "alice"]).status, 0, "after the share's time", file: file, line: line)

        // A read-write share takes a write to its item, and still none outside it.
        try share(["--service", "granted", "--read-write"], file: file, line: line)
        XCTAssertEqual(try run(["set", "granted", "carol"], stdin: Data("written inside".utf8)).status, 0, file: file, line: line)
        XCTAssertEqual(try run(["set", "other", "carol"], stdin: Data("x".utf8)).exitStatus, .accessDenied, file: file, line: line)
        // Read here with the vault's passphrase: the item's owner is the program that wrote it inside.
        XCTAssertEqual(try coffer(["get", "granted", "carol", "--no-agent"]).stdoutText, "written inside", file: file, line: line)
        XCTAssertEqual(try coffer(["get", "other", "carol", "--no-agent"]).exitStatus, .notFound, file: file, line: line)

        // Internet passwords: docker's helper reads its registry's, and git's none; then the other way round.
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0, file: file, line: line)
        let gitQuestion = Data("protocol=https\nhost=git.example\n\n".utf8)
        try share(["--internet", "--service", "registry.example"], file: file, line: line)
        let registry = try inside(["docker-credential-coffer", "get"], environment, Data("registry.example".utf8))
        XCTAssertEqual(registry.status, 0, registry.stderrText, file: file, line: line)
        XCTAssertTrue(registry.stdoutText.contains("registry token"), registry.stdoutText, file: file, line: line)
        let noGit = try inside(["git-credential-coffer", "get"], environment, gitQuestion)
        XCTAssertFalse(noGit.stdoutText.contains("git password"), "git's item is outside the grant", file: file, line: line)
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0, file: file, line: line)
        try share(["--internet", "--service", "https://git.example"], file: file, line: line)
        let gitAnswer = try inside(["git-credential-coffer", "get"], environment, gitQuestion)
        XCTAssertEqual(gitAnswer.status, 0, gitAnswer.stderrText, file: file, line: line)
        XCTAssertTrue(gitAnswer.stdoutText.contains("password=git password"), gitAnswer.stdoutText, file: file, line: line)
        XCTAssertNotEqual(try inside(["docker-credential-coffer", "get"], environment, Data("registry.example".utf8)).status, 0,
                          "docker's item is outside the grant", file: file, line: line)

        // The agent's stop ends the share too, and the log has its own entries.
        let log = try coffer(["access", "log", "--json", "--no-agent"])
        XCTAssertEqual(log.status, 0, log.stderrText, file: file, line: line)
        for name in ["\"share\"", "\"unshare\"", "\"revoked\"", "\"expired\"", "\"shared\"", "\"outside-grant\""] {
            XCTAssertTrue(log.stdoutText.contains(name), "the audit log has \(name)", file: file, line: line)
        }
        XCTAssertEqual(try coffer(["agent", "stop"]).status, 0, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: shareSocket.path), "the agent's stop removes the share", file: file, line: line)
    }

    /// The whole check of a profile's share (`coffer agent share --profile work`), with commands
    /// run through `inside`: `coffer token --profile work` there prints the token `coffer token`
    /// prints here, and after the token expires, the one token a single refresh at the provider
    /// gave; the share's reply frames and `--json` carry no refresh token; no item is found
    /// through it (the login's own `coffer.openid` items, an ordinary item) and none listed;
    /// another profile is refused (exit 13); each token handed out is logged `shared`, decided by
    /// the share's gate, which asks nobody (the vault's policy is `confirm` and the agent has no
    /// prompter, so the agent's own gate would refuse a program that does not own the login); and
    /// after `unshare`, the share's time, or the agent's stop, the next `coffer token` there fails.
    func checkProfileShare(socketInside: String, home: String, file: StaticString = #filePath, line: UInt = #line, _ inside: Inside) async throws {
        try prepareVaults()
        server = try provider()
        try await login(profile: "work")
        try await login()
        let refreshToken = try refreshToken(profile: "work")
        let here = try coffer(["token", "--profile", "work"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(here.status, 0, here.stderrText, file: file, line: line)
        let token = here.stdoutText.trimmingCharacters(in: .newlines)

        let refused = try coffer(["agent", "share", "--socket", shareSocket.path, "--profile", "work", "--read-write"])
        XCTAssertEqual(refused.exitStatus, .usage, "a profile's share is never read-write", file: file, line: line)
        let noLogin = try coffer(["agent", "share", "--socket", shareSocket.path, "--profile", "nobody"])
        XCTAssertEqual(noLogin.exitStatus, .usage, noLogin.stderrText, file: file, line: line)
        XCTAssertTrue(noLogin.stderrText.contains("no login of profile nobody"), noLogin.stderrText, file: file, line: line)
        let shared = try coffer(["agent", "share", "--socket", shareSocket.path, "--profile", "work"])
        XCTAssertEqual(shared.status, 0, shared.stderrText, file: file, line: line)
        XCTAssertTrue(shared.stdoutText.hasPrefix("sharing the tokens of profile work at \(shareSocket.path) until "), shared.stdoutText,
                      file: file, line: line)

        let environment = ["COFFER_AGENT_SOCKET": socketInside, "HOME": home, "PATH": "/usr/bin:/bin", "COFFER_PASSPHRASE": ""]
        func run(_ arguments: [String]) throws -> ChildProcess.Output { try inside(["coffer"] + arguments, environment, Data()) }

        let minted = try run(["token", "--profile", "work"])
        XCTAssertEqual(minted.status, 0, minted.stderrText, file: file, line: line)
        XCTAssertTrue(minted.stdoutText == token + "\n", "the agent's token, not refreshed", file: file, line: line)
        let json = try run(["token", "--profile", "work", "--json"])
        XCTAssertEqual(json.status, 0, json.stderrText, file: file, line: line)
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any], file: file, line: line)
        XCTAssertTrue(fields["token"] as? String == token, "--json's token", file: file, line: line)
        XCTAssertEqual(fields["profile"] as? String, "work", file: file, line: line)
        let frames = try inside(["coffer-test-helper", "agent-tokens", socketInside, "/nowhere/v.vault", "work", "2"], environment, Data())
        XCTAssertEqual(frames.status, 0, frames.stderrText, file: file, line: line)
        let replies = Self.replies(frames)
        XCTAssertTrue(replies.map(\.line) == ["token " + token, "token " + token], "\(replies.count) replies of the agent's token", file: file, line: line)
        for output in [minted, json] {
            XCTAssertFalse(output.stdout.contains(refreshToken) || output.stderr.contains(refreshToken), "no output inside shows the refresh token",
                           file: file, line: line)
        }
        for reply in replies {
            XCTAssertTrue(reply.frame.contains(token), "the frame as read from the share's socket", file: file, line: line)
            XCTAssertFalse(reply.frame.contains(refreshToken), "no reply frame through the share carries the refresh token", file: file, line: line)
        }

        // No item: the login's own items, an ordinary one; none listed.
        let session = try XCTUnwrap(try openVault().items(matching: ItemQuery(service: "coffer.openid")).first { $0.id.account.hasPrefix("work ") }?.id.account,
                                    file: file, line: line)
        for (service, account) in [("coffer.openid", session), ("coffer.openid", "work"), ("coffer.auth", "openid work"), ("granted", "alice")] {
            let read = try run(["get", service, account])
            XCTAssertEqual(read.exitStatus, .notFound, "\(service) \(account) through a profile's share: \(read.stderrText)", file: file, line: line)
            XCTAssertTrue(read.stdout.isEmpty, file: file, line: line)
        }
        let listed = try run(["list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderrText, file: file, line: line)
        XCTAssertEqual(listed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "[]", file: file, line: line)
        XCTAssertEqual(try inside(["coffer", "set", "granted", "carol"], environment, Data("x".utf8)).exitStatus, .accessDenied, file: file, line: line)
        let other = try run(["token"])
        XCTAssertEqual(other.exitStatus, .accessDenied, "another profile's token: \(other.stderrText)", file: file, line: line)
        XCTAssertTrue(other.stdout.isEmpty, file: file, line: line)

        // An expired token: refreshed by the agent through the share, once.
        let counted = try await server.refreshCount()
        usleep(Self.expiry)
        let refreshed = try run(["token", "--profile", "work"])
        XCTAssertEqual(refreshed.status, 0, refreshed.stderrText, file: file, line: line)
        let newToken = refreshed.stdoutText.trimmingCharacters(in: .newlines)
        XCTAssertTrue(newToken != token, "a new token", file: file, line: line)
        let after = try await server.refreshCount()
        XCTAssertEqual(after.count - counted.count, 1, "one refresh request", file: file, line: line)
        let userinfo = try await server.userinfo(accessToken: newToken)
        XCTAssertEqual(userinfo.status, 200, "the provider takes it", file: file, line: line)
        XCTAssertTrue(try coffer(["token", "--profile", "work"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText == newToken + "\n",
                      "the same login, refreshed", file: file, line: line)
        XCTAssertFalse(refreshed.stdout.contains(refreshToken), file: file, line: line)

        let log = try tokenLog()
        XCTAssertTrue(log.contains { $0.item.hasPrefix("work scope=") && $0.decision == "shared" }, "\(log)", file: file, line: line)
        XCTAssertTrue(log.contains { $0.item == "default" && $0.decision == "outside-grant" }, "\(log)", file: file, line: line)

        // Ending the share ends the minting: unshare, its time, the agent's stop. With no agent
        // at the socket, the client looks for a vault of its own there, and finds none.
        func checkEnded(_ reason: String) throws {
            let ended = try run(["token", "--profile", "work"])
            XCTAssertEqual(ended.exitStatus, .noVault, "after \(reason): \(ended.stderrText)", file: file, line: line)
            XCTAssertTrue(ended.stderrText.hasSuffix("coffer: no vault at \(home)/.local/share/coffer/default.vault\n"), ended.stderrText, file: file, line: line)
            XCTAssertTrue(ended.stdout.isEmpty, file: file, line: line)
        }
        XCTAssertEqual(try coffer(["agent", "unshare", shareSocket.path]).status, 0, file: file, line: line)
        try checkEnded("unshare")
        try share(["--profile", "work", "--for", "2s"], file: file, line: line)
        XCTAssertEqual(try run(["token", "--profile", "work"]).status, 0, file: file, line: line)
        let deadline = ContinuousClock.now + .seconds(15)
        while FileManager.default.fileExists(atPath: shareSocket.path), ContinuousClock.now < deadline { usleep(100_000) }
        try checkEnded("the share's time")
        try share(["--profile", "work"], file: file, line: line)
        XCTAssertEqual(try coffer(["agent", "stop"]).status, 0, file: file, line: line)
        try checkEnded("the agent's stop")
    }
}
