import CofferTestSupport
import Foundation
import XCTest

/// `git-credential-coffer` spoken to directly, as git (and newer git than Debian 12's) speaks
/// to it: the fields, the parsing limits, expiry, git's matching rules for erase, the options,
/// and a vault it cannot unlock.
final class GitCredentialHelperTests: CredentialHelperTestCase {
    override func setUpWithError() throws {
        try initVault()
    }

    private func run(_ operation: String, _ lines: [String], arguments: [String] = [], environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        try gitHelper(arguments + [operation], lines.map { $0 + "\n" }.joined() + "\n", environment: environment)
    }

    /// Runs `get` and returns its answer's fields, failing the test on a non-zero exit.
    private func get(_ lines: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [Field] {
        let answer = try run("get", lines)
        XCTAssertEqual(answer.status, 0, answer.stderrText, file: file, line: line)
        XCTAssertEqual(answer.stderrText, "", file: file, line: line)
        return Self.fields(answer.stdoutText)
    }

    private func store(_ lines: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let stored = try run("store", lines)
        XCTAssertEqual(stored.status, 0, stored.stderrText, file: file, line: line)
        XCTAssertEqual(stored.stdoutText + stored.stderrText, "", file: file, line: line)
    }

    private func erase(_ lines: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let erased = try run("erase", lines)
        XCTAssertEqual(erased.status, 0, erased.stderrText, file: file, line: line)
    }

    private func login(_ user: String, _ password: String) -> [Field] {
        [Field(key: "username", value: user), Field(key: "password", value: password)]
    }

    private let site = ["protocol=https", "host=git.example"]

    func testCapabilityAnnouncesAuthtype() throws {
        let answer = try gitHelper(["capability"], "")
        XCTAssertEqual(answer.status, 0, answer.stderrText)
        XCTAssertEqual(answer.stdoutText, "version 0\ncapability authtype\n")
    }

    func testAStoredLoginIsAnsweredAndCofferListShowsItAsAnInternetPassword() throws {
        XCTAssertEqual(try get(site), [], "nothing stored yet")
        try store(site + ["username=ada", "password=s3cret"])
        XCTAssertEqual(try get(site), login("ada", "s3cret"))
        XCTAssertEqual(try get(site + ["username=ada"]), login("ada", "s3cret"))

        let list = try coffer(["list"])
        XCTAssertEqual(list.stdoutText, "internet\thttps://git.example\tada\tgit credential\n")
        let json = try JSONSerialization.jsonObject(with: try coffer(["list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(json?.first?["internet"] as? [String: String], ["protocol": "https"])
        XCTAssertEqual(json?.first?["attributes"] as? [String: String], ["git.host": "git.example"])
        XCTAssertEqual(try coffer(["get", "--internet", "https://git.example", "ada"]).stdoutText, "s3cret", "the secret is the password")
    }

    func testTheHostsPortAndThePathAreKept() throws {
        try store(["protocol=https", "host=git.example:8443", "path=team/repo.git", "username=ada", "password=one"])
        let json = try JSONSerialization.jsonObject(with: try coffer(["list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(json?.first?["service"] as? String, "https://git.example:8443/team/repo.git")
        let internet = json?.first?["internet"] as? [String: Any]
        XCTAssertEqual(internet?["port"] as? Int, 8443)
        XCTAssertEqual(internet?["path"] as? String, "team/repo.git")

        XCTAssertEqual(try get(["protocol=https", "host=git.example:8443", "path=team/repo.git"]), login("ada", "one"))
        XCTAssertEqual(try get(["protocol=https", "host=git.example:8443"]), login("ada", "one"), "a request without a path selects any path")
        XCTAssertEqual(try get(["protocol=https", "host=git.example:8443", "path=team/other.git"]), [])
        XCTAssertEqual(try get(["protocol=https", "host=git.example"]), [], "another port is another host")
    }

    func testOneLoginAPathWhenGitUsesPaths() throws {
        try store(site + ["path=a.git", "username=bot", "password=token-a"])
        try store(site + ["path=b.git", "username=bot", "password=token-b"])
        XCTAssertEqual(try get(site + ["path=a.git"]), login("bot", "token-a"))
        XCTAssertEqual(try get(site + ["path=b.git"]), login("bot", "token-b"))
        XCTAssertEqual(try coffer(["list"]).stdoutText.split(separator: "\n").count, 2)
    }

    func testExpiryAndRefreshTokenAreKeptAndAnExpiredPasswordIsNeverAnswered() throws {
        let future = Int(Date().timeIntervalSince1970) + 3600
        try store(site + ["username=ada", "password=access", "password_expiry_utc=\(future)", "oauth_refresh_token=refresh"])
        XCTAssertEqual(try get(site), login("ada", "access") + [
            Field(key: "password_expiry_utc", value: "\(future)"), Field(key: "oauth_refresh_token", value: "refresh"),
        ])

        let past = Int(Date().timeIntervalSince1970) - 60
        try store(site + ["username=ada", "password=stale", "password_expiry_utc=\(past)", "oauth_refresh_token=refresh2"])
        XCTAssertEqual(
            try get(site), [Field(key: "username", value: "ada"), Field(key: "oauth_refresh_token", value: "refresh2")],
            "neither the expired password nor its expiry; the user name and refresh token, as git keeps them")
        XCTAssertFalse(try coffer(["list", "--json"]).stdoutText.contains("stale"))
    }

    func testAPasswordWithNoExpiryIgnoresAnExpiryThatIsNotANumber() throws {
        try store(site + ["username=ada", "password=p", "password_expiry_utc=soon"])
        XCTAssertEqual(try get(site), login("ada", "p"))
    }

    func testAPreEncodedCredentialNeedsTheAuthtypeCapability() throws {
        try store(site + ["capability[]=authtype", "authtype=Bearer", "credential=abc.def"])
        XCTAssertEqual(try get(site), [], "without the capability git cannot use it")
        XCTAssertEqual(try get(["capability[]=authtype"] + site), [
            Field(key: "capability[]", value: "authtype"), Field(key: "authtype", value: "Bearer"), Field(key: "credential", value: "abc.def"),
        ])
        XCTAssertEqual(try get(["capability[]=authtype", "protocol=https", "host=other.example"]), [Field(key: "capability[]", value: "authtype")])

        try store(site + ["authtype=Bearer", "credential=ignored", "username=ada", "password=p"])
        XCTAssertEqual(try get(site), login("ada", "p"), "authtype and credential count only after the capability")
    }

    func testAnEphemeralCredentialIsNotStored() throws {
        try store(["capability[]=authtype"] + site + ["authtype=Digest", "credential=nonce-bound", "ephemeral=1"])
        XCTAssertEqual(try coffer(["list"]).stdoutText, "")
    }

    func testUnknownKeysAndGitsOneWayListsAreIgnored() throws {
        try store(site + ["username=ada", "x-future=1", "password=p", "wwwauth[]=Basic realm=\"x\"", "state[]=other:1", "url=https://elsewhere"])
        XCTAssertEqual(try get(site + ["wwwauth[]=Basic realm=\"x\"", "wwwauth[]=", "quit=0", "continue=1"]), login("ada", "p"))
    }

    func testALineOfExactly65535BytesIsAcceptedAndOneByteMoreRefusesTheWholeRequest() throws {
        let longest = String(repeating: "x", count: 65_535 - "password=\n".utf8.count)
        try store(site + ["username=ada", "password=\(longest)"])
        XCTAssertEqual(try get(site), login("ada", longest))

        let refused = try run("store", site + ["username=ada", "password=\(longest)y"])
        XCTAssertEqual(refused.exitStatus, .dataError)
        XCTAssertEqual(
            refused.stderrText,
            "git-credential-coffer: refused the request: a line of the request is longer than 65535 bytes; nothing answered or stored\n")
        XCTAssertEqual(try get(site), login("ada", longest), "the stored login is untouched")

        let tooLongGet = try run("get", site + ["wwwauth[]=\(longest)yy"])
        XCTAssertEqual(tooLongGet.exitStatus, .dataError)
        XCTAssertEqual(tooLongGet.stdoutText, "", "nothing answered")
    }

    func testANulByteRefusesTheWholeRequest() throws {
        try store(site + ["username=ada", "password=p"])
        let get = try gitHelper(["get"], "protocol=https\nhost=git.example\nusername=ada\u{0}x\n\n")
        XCTAssertEqual(get.exitStatus, .dataError)
        XCTAssertEqual(get.stdoutText, "")
        XCTAssertEqual(get.stderrText, "git-credential-coffer: refused the request: the request holds a NUL byte; nothing answered or stored\n")

        let store = try gitHelper(["store"], "protocol=https\nhost=git.example\nusername=ada\npassword=new\u{0}\n\n")
        XCTAssertEqual(store.exitStatus, .dataError)
        XCTAssertEqual(try self.get(site), login("ada", "p"), "nothing stored")
    }

    func testMalformedRequestsAreRefused() throws {
        for (request, reason) in [
            (Array("protocol=https\nhost\n\n".utf8), "line 2 of the request has no '='"),
            (Array("protocol=https\nhost=".utf8) + [0xFF] + Array("\nusername=a\npassword=p\n\n".utf8), "the request's host is not valid UTF-8"),
            (Array("capability[]=authtype\nephemeral=maybe\n\n".utf8), "the request's ephemeral is not a boolean"),
        ] {
            let refused = try helper(Self.gitHelperPath, ["store"], stdin: Data(request))
            XCTAssertEqual(refused.exitStatus, .dataError, reason)
            XCTAssertEqual(refused.stderrText, "git-credential-coffer: refused the request: \(reason); nothing answered or stored\n")
        }
        XCTAssertEqual(try coffer(["list"]).stdoutText, "")
    }

    func testARequestWithCarriageReturnsAndNoBlankLineIsRead() throws {
        let stored = try gitHelper(["store"], "protocol=https\r\nhost=git.example\r\nusername=ada\r\npassword=p\r\n")
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        XCTAssertEqual(try get(site), login("ada", "p"))
    }

    func testStoreReplacesWhatItSelectsAndGetAnswersTheNewest() throws {
        try store(site + ["username=ada", "password=one"])
        try store(site + ["username=ada", "password=two"])
        XCTAssertEqual(try get(site), login("ada", "two"))
        try store(site + ["username=bob", "password=three"])
        XCTAssertEqual(try get(site), login("bob", "three"), "without a user name, the newest login")
        XCTAssertEqual(try get(site + ["username=ada"]), login("ada", "two"))

        try store(site + ["path=repo.git", "username=ada", "password=path"])
        try store(site + ["username=ada", "password=four"])
        XCTAssertEqual(try get(site + ["path=repo.git", "username=ada"]), [], "a store without a path replaced ada's logins for every path")
    }

    func testEraseFollowsGitsMatchingRules() throws {
        try store(site + ["username=ada", "password=p1"])
        try store(site + ["username=bob", "password=p2"])
        try store(["protocol=http", "host=git.example", "username=ada", "password=p3"])

        try erase(site + ["username=ada", "password=not-this-one"])
        XCTAssertEqual(try get(site + ["username=ada"]), login("ada", "p1"), "another password is another credential: kept")
        try erase(site + ["username=ada", "password=p1"])
        XCTAssertEqual(try get(site + ["username=ada"]), [])
        XCTAssertEqual(try get(site + ["username=bob"]), login("bob", "p2"), "another user: kept")
        XCTAssertEqual(try get(["protocol=http", "host=git.example"]), login("ada", "p3"), "another protocol: kept")

        try erase([])
        XCTAssertEqual(try coffer(["list"]).stdoutText.split(separator: "\n").count, 2, "an empty description erases nothing")
        try erase(["host=git.example"])
        XCTAssertEqual(try coffer(["list"]).stdoutText, "", "a host alone selects every login for it")
    }

    func testAnItemTheHelperDidNotWriteIsNeitherAnsweredNorReplaced() throws {
        XCTAssertEqual(try coffer(["set", "--internet", "https://git.example", "ada"], stdin: Data("mine".utf8)).status, 0)
        XCTAssertEqual(try get(site), [])
        let refused = try run("store", site + ["username=ada", "password=p"])
        XCTAssertEqual(refused.exitStatus, .alreadyExists, "never 'not found': the item is there")
        XCTAssertTrue(refused.stderrText.contains("did not write; not replacing it"), refused.stderrText)
        XCTAssertEqual(try coffer(["get", "--internet", "https://git.example", "ada"]).stdoutText, "mine")
    }

    func testUnknownOperationsAreIgnored() throws {
        let answer = try run("frobnicate", site)
        XCTAssertEqual(answer.status, 0)
        XCTAssertEqual(answer.stdoutText + answer.stderrText, "")
    }

    func testTheVaultComesFromTheHelpersArgumentsOrTheEnvironment() throws {
        let other = folder.file("other.vault")
        XCTAssertEqual(try coffer(["--vault", other.path, "init", "--kdf", "interactive"]).status, 0)
        let stored = try run("store", site + ["username=ada", "password=p"], arguments: ["--vault", other.path])
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        XCTAssertEqual(try get(site), [], "not in $COFFER_VAULT's vault")
        let fromArgument = try run("get", site, arguments: ["--vault", other.path], environment: ["COFFER_VAULT": nil])
        XCTAssertEqual(Self.fields(fromArgument.stdoutText), login("ada", "p"))
        let fromEnvironment = try run("get", site, environment: ["COFFER_VAULT": other.path])
        XCTAssertEqual(Self.fields(fromEnvironment.stdoutText), login("ada", "p"))
    }

    func testThroughTheAgentNoCredentialIsNeeded() throws {
        try startAgentHoldingTheVault()
        let noPassphrase: [String: String?] = ["COFFER_PASSPHRASE": nil]
        let stored = try run("store", site + ["username=ada", "password=p"], environment: noPassphrase)
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let answer = try run("get", site, environment: noPassphrase)
        XCTAssertEqual(answer.status, 0, answer.stderrText)
        XCTAssertEqual(Self.fields(answer.stdoutText), login("ada", "p"))
        XCTAssertEqual(try coffer(["get", "--internet", "--no-agent", "https://git.example", "ada"]).stdoutText, "p", "in the vault file")
    }

    func testAVaultItCannotUnlockGivesOneLineAndNoAnswerWithinSeconds() throws {
        try store(site + ["username=ada", "password=p"])
        let locked = try run("get", site, environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(locked.exitStatus, .locked)
        XCTAssertEqual(locked.stdoutText, "", "no answer: git goes on to its other helpers or asks")
        XCTAssertEqual(
            locked.stderrText,
            "git-credential-coffer: cannot use the vault: no passphrase: use --passphrase-fd or $COFFER_PASSPHRASE, a key file, or `coffer unlock` with the agent (no prompt here)\n")
        XCTAssertLessThan(locked.duration, .milliseconds(TestTiming.limit(milliseconds: 5000)))

        let wrong = try run("get", site, environment: ["COFFER_PASSPHRASE": "wrong"])
        XCTAssertEqual(wrong.exitStatus, .locked)
        XCTAssertEqual(wrong.stderrText, "git-credential-coffer: cannot use the vault: wrong passphrase\n")
        XCTAssertEqual(wrong.stdoutText, "")
    }

    func testItNeverPromptsOnTheTerminal() throws {
        try store(site + ["username=ada", "password=p"])
        // The helper runs with a pseudo-terminal as its controlling terminal, stdout and
        // stderr; a prompt would show there and wait (answer_on_terminal.py gives up after 30 s).
        let script = "printf 'protocol=https\\nhost=git.example\\n\\n' | \(Self.gitHelperPath) get"
        guard (try? ChildProcess.run("python3", ["-c", "import pty"], timeout: .seconds(20)))?.status == 0 else {
            throw MissingPrerequisite.error("python3 is missing: run scripts/bootstrap.sh test")
        }
        let onTerminal = try ChildProcess.run(
            "python3", [CofferCLI.repository.appendingPathComponent("Tests/CofferCLITests/Fixtures/answer_on_terminal.py").path, "[]", "/bin/sh", "-c", script], environment: baseEnvironment.merging(["COFFER_PASSPHRASE": nil]) { $1 }, timeout: .seconds(40))
        XCTAssertEqual(onTerminal.exitStatus, .locked, onTerminal.stdoutText)
        XCTAssertFalse(onTerminal.stdoutText.contains("Passphrase:"), "a prompt on the terminal: \(onTerminal.stdoutText)")
        XCTAssertTrue(onTerminal.stdoutText.contains("git-credential-coffer: cannot use the vault"), onTerminal.stdoutText)
        XCTAssertLessThan(onTerminal.duration, .milliseconds(TestTiming.limit(milliseconds: 10000)))
    }
}
