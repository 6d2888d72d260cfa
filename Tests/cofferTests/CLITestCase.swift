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
        _ outcome: ChildProcess.Output, status: Int32, message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, status, outcome.stderrText, file: file, line: line)
        XCTAssertEqual(outcome.stderrText, "coffer: \(message)\n", file: file, line: line)
    }
}
