import CofferTestSupport
import Foundation
import XCTest

/// Runs the built `coffer` binary against a vault in a private temporary folder.
class CLITestCase: XCTestCase {
    let folder = TemporaryFolder()
    let passphrase = "cli test passphrase"
    var vault: URL { folder.file("cli.vault") }

    /// Runs `coffer` with the vault and passphrase in its environment (override with `environment`).
    func coffer(_ arguments: [String], stdin: Data? = nil, environment: [String: String?] = [:]) throws -> ChildProcess.Outcome {
        try run(BuiltProducts.executable("coffer"), arguments, stdin: stdin, environment: environment)
    }

    /// Runs `coffer` with file descriptor 3 reading `file` (for --passphrase-fd 3), via /bin/sh so
    /// that nothing secret is on any command line.
    func coffer(_ arguments: [String], fd3 file: URL, stdin: Data? = nil, environment: [String: String?] = [:]) throws -> ChildProcess.Outcome {
        let redirect: [String: String?] = ["COFFER_BINARY": BuiltProducts.executable("coffer").path, "FD3_FILE": file.path]
        return try run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$COFFER_BINARY\" \"$@\" 3<\"$FD3_FILE\"", "sh"] + arguments,
            stdin: stdin, environment: environment.merging(redirect) { $1 })
    }

    private func run(_ executable: URL, _ arguments: [String], stdin: Data?, environment: [String: String?]) throws -> ChildProcess.Outcome {
        var merged: [String: String?] = [
            "COFFER_VAULT": vault.path, "COFFER_PASSPHRASE": passphrase, "COFFER_KEYFILE": nil,
            "COFFER_NEW_PASSPHRASE": nil, "XDG_DATA_HOME": folder.file("xdg").path,
        ]
        merged.merge(environment) { $1 }
        return try ChildProcess.run(executable, arguments, environment: merged, stdin: stdin)
    }

    /// Creates the test vault with a cheap passphrase cost.
    func initVault() throws {
        let outcome = try coffer(["init", "--kdf", "interactive"])
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
    }

    /// A file holding `text`, mode 0600.
    func privateFile(_ name: String, _ text: String) throws -> URL {
        let url = folder.file(name)
        try Data(text.utf8).write(to: url)
        chmod(url.path, 0o600)
        return url
    }

    /// Asserts a failure: the exit status, and exactly one line on stderr saying `message`.
    func assertFailure(
        _ outcome: ChildProcess.Outcome, status: Int32, message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, status, outcome.stderrText, file: file, line: line)
        XCTAssertEqual(outcome.stderrText, "coffer: \(message)\n", file: file, line: line)
    }
}
