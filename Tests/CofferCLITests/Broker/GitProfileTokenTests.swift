import CofferTestSupport
import Foundation
import XCTest

/// git over HTTPS-style OAuth with the token broker (docs/agent.md, section 11): real git, with
/// `git-credential-coffer --profile` configured as the helper of one host, clones from `git
/// http-backend` behind lighttpd (``GitHTTPServer``), which takes the agent's access token as
/// the password of user `oauth2`, as Git hosts take OAuth tokens. No prompt is ever shown.
final class GitProfileTokenTests: BrokerTestCase {
    private var gitHelper: String { BuiltProducts.executable("git-credential-coffer").path }

    /// Runs git with only the profile's helper for the server's URL, and no way to prompt.
    private func git(_ arguments: [String], url: String, stdin: String = "") throws -> ChildProcess.Output {
        let configuration = ["credential.helper=", "credential.\(url).helper=\(gitHelper) --profile default", "init.defaultBranch=main"]
        return try ChildProcess.run(
            "git", configuration.flatMap { ["-c", $0] } + arguments,
            environment: baseEnvironment.merging(["GIT_ASKPASS": "/bin/false", "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "HOME": folder.url.path]) { $1 },
            stdin: Data(stdin.utf8), timeout: .seconds(60))
    }

    /// Once the helper may have the profile's tokens (`coffer access grant`), `git credential
    /// fill` for the host answers username `oauth2` and the agent's token (the helper's own
    /// answer has its `password_expiry_utc`), and git clones with it; the refresh token is in no answer. Before
    /// the grant the helper is refused (the vault's `confirm` policy, no prompter) and git, with
    /// no other helper and no prompt, fails. `reject` (git's erase) tells the agent the server
    /// refused the token: the next fill has a new one.
    func testGitClonesWithTheAgentsToken() async throws {
        try startAgentHoldingTheVault()
        try await login()
        let token = try coffer(["token"]).stdoutText.trimmingCharacters(in: .newlines)
        let serverFolder = folder.file("server")
        try FileManager.default.createDirectory(at: serverFolder, withIntermediateDirectories: false)
        let server = try GitHTTPServer(folder: serverFolder, user: "oauth2", password: token)
        defer { server.stop() }
        let url = server.repositoryURL

        let refused = try git(["clone", "--quiet", url, folder.file("refused").path], url: url)
        XCTAssertNotEqual(refused.status, 0, "the helper is no owner of the login and not on its list")

        let granted = try coffer(["access", "grant", "coffer.openid", "default", gitHelper])
        XCTAssertEqual(granted.status, 0, granted.stderrText)
        let fill = try git(["credential", "fill"], url: url, stdin: "url=\(url)\n\n")
        XCTAssertEqual(fill.status, 0, fill.stderrText)
        let fields = Dictionary(fill.stdoutText.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }) { first, _ in first }
        XCTAssertEqual(fields["username"], "oauth2")
        XCTAssertEqual(fields["password"], token)
        XCTAssertFalse(fill.stdout.contains(try refreshToken()))
        // git 2.41 and later pass password_expiry_utc on (Debian 12's 2.39 drops it): the helper's own answer has it.
        let answer = try ChildProcess.run(
            gitHelper, ["--profile", "default", "get"], environment: baseEnvironment, stdin: Data("protocol=http\nhost=127.0.0.1:\(server.port)\n\n".utf8))
        XCTAssertEqual(answer.status, 0, answer.stderrText)
        let expiry = try XCTUnwrap(answer.stdoutText.firstMatch(of: /password_expiry_utc=(\d+)\n/).flatMap { TimeInterval($0.1) }, answer.stdoutText)
        XCTAssertTrue(expiry > Date().timeIntervalSince1970, "a future expiry: \(expiry)")

        let cloned = try git(["clone", "--quiet", url, folder.file("clone").path], url: url)
        XCTAssertEqual(cloned.status, 0, cloned.stderrText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("clone/.git").path))

        let rejected = try git(["credential", "reject"], url: url, stdin: "url=\(url)\nusername=oauth2\npassword=\(token)\n\n")
        XCTAssertEqual(rejected.status, 0, rejected.stderrText)
        let again = try git(["credential", "fill"], url: url, stdin: "url=\(url)\n\n")
        XCTAssertEqual(again.status, 0, again.stderrText)
        XCTAssertFalse(again.stdoutText.contains("password=\(token)\n"), "the refused token is not answered again")
        XCTAssertTrue(again.stdoutText.contains("password="), again.stdoutText)
    }
}
