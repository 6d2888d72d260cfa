import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// Runs the built `coffer` binary against a vault in a private temporary folder.
class CLITestCase: XCTestCase {
    let folder = TemporaryFolder()
    let passphrase = "cli test passphrase"
    var vault: URL { folder.file("cli.vault") }
    /// This test's own agent socket, so that no test meets the user's agent.
    var agentSocket: URL { folder.file("agent.sock") }
    /// The agent ``startAgent(_:openFileLimit:file:line:)`` started; stopped after the test.
    var agent: ChildProcess?

    override func tearDown() {
        agent?.stop()
        super.tearDown()
    }

    /// Runs `coffer agent start --foreground` on ``agentSocket`` as a child this test owns, with
    /// the environment every command here has, and waits until it answers. `openFileLimit`
    /// starts it with that soft limit on open files.
    func startAgent(_ extra: [String] = [], openFileLimit: Int? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let environment = baseEnvironment
        let command = [BuiltProducts.executable("coffer").path, "agent", "start", "--foreground"] + extra
        agent = try openFileLimit.map { limit in
            try ChildProcess.start("/bin/sh", ["-c", "ulimit -S -n \(limit) && exec \"$@\"", "sh"] + command, environment: environment)
        } ?? ChildProcess.start(command[0], Array(command.dropFirst()), environment: environment)
        // Until it answers (a `for … where` would run all 500 rounds: it filters, it does not stop).
        for _ in 0..<500 {
            if try coffer(["agent", "status"]).status == 0 { break }
            usleep(10_000)
        }
        XCTAssertEqual(try coffer(["agent", "status"]).status, 0, "the agent answers", file: file, line: line)
    }

    /// Creates the test vault with one item: mail/ada, whose secret is "first".
    func initVaultWithItem() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("first".utf8)).status, 0)
    }

    /// Runs `coffer` with the vault and passphrase in its environment (override with `environment`);
    /// `inputs` feeds other file descriptors, such as 3 for `--passphrase-fd 3`.
    func coffer(
        _ arguments: [String], stdin: Data = Data(), inputs: [Int32: Data?] = [:], environment: [String: String?] = [:]
    ) throws -> ChildProcess.Output {
        let merged = baseEnvironment.merging(environment) { $1 }
        return try ChildProcess.run(BuiltProducts.executable("coffer"), arguments, environment: merged, stdin: stdin, inputs: inputs)
    }

    /// Runs a `/bin/sh` script with the same environment as ``coffer(_:stdin:inputs:environment:)``
    /// and `$COFFER` naming the binary: for redirections a test cannot make with pipes
    /// (`>&-`, `2>&-`, `>/dev/full`, `3<&-`) and for arguments that are not UTF-8 (`printf`).
    func shell(_ script: String, stdin: Data = Data(), environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        var merged = environment
        merged["COFFER"] = BuiltProducts.executable("coffer").path
        return try ChildProcess.run("/bin/sh", ["-c", script], environment: baseEnvironment.merging(merged) { $1 }, stdin: stdin)
    }

    var baseEnvironment: [String: String?] {
        [
            "COFFER_VAULT": vault.path, "COFFER_PASSPHRASE": passphrase, "COFFER_KEYFILE": nil,
            "COFFER_NEW_PASSPHRASE": nil, "COFFER_BACKEND": nil, "COFFER_UNLOCK": nil, "XDG_DATA_HOME": folder.file("xdg").path,
            "COFFER_AGENT_SOCKET": agentSocket.path,
        ]
    }

    /// Creates the test vault with a cheap passphrase cost.
    func initVault() throws {
        let outcome = try coffer(["init", "--kdf", "interactive"])
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
    }

    /// Asserts a failure: the exit status, and exactly one line on stderr saying `message`.
    func assertFailure(
        _ outcome: ChildProcess.Output, status: ExitStatus, message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.exitStatus, status, outcome.stderrText, file: file, line: line)
        XCTAssertEqual(outcome.stderrText, "coffer: \(message)\n", file: file, line: line)
    }
}
