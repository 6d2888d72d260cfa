import CofferTestSupport
import Foundation
import XCTest

/// A ``CLITestCase`` that also runs the credential helpers, git, and an agent of its own.
class CredentialHelperTestCase: CLITestCase {
    static let gitHelperPath = BuiltProducts.executable("git-credential-coffer").path
    static let dockerHelperPath = BuiltProducts.executable("docker-credential-coffer").path

    /// Runs `git-credential-coffer arguments…` with `request` on stdin, in this test's environment.
    func gitHelper(_ arguments: [String], _ request: String, environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        try helper(Self.gitHelperPath, arguments, stdin: Data(request.utf8), environment: environment)
    }

    /// Runs `docker-credential-coffer arguments…` with `input` on stdin, in this test's environment.
    func dockerHelper(_ arguments: [String], _ input: String = "", environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        try helper(Self.dockerHelperPath, arguments, stdin: Data(input.utf8), environment: environment)
    }

    func helper(_ path: String, _ arguments: [String], stdin: Data, environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        try ChildProcess.run(path, arguments, environment: baseEnvironment.merging(environment) { $1 }, stdin: stdin, timeout: .seconds(30))
    }

    /// Runs git with no configuration but this test's (a private HOME, no system file) and
    /// `configuration` as `-c` pairs; it never prompts on the terminal.
    func git(_ arguments: [String], configuration: [String] = [], stdin: String = "", environment: [String: String?] = [:]) throws -> ChildProcess.Output {
        try Self.requireGit()
        let home = folder.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var gitEnvironment: [String: String?] = [
            "HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": nil, "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": nil, "SSH_ASKPASS": nil, "XDG_CONFIG_HOME": home.path,
        ]
        gitEnvironment.merge(environment) { $1 }
        let options = configuration.flatMap { ["-c", $0] }
        return try ChildProcess.run(
            "git", options + arguments, environment: baseEnvironment.merging(gitEnvironment) { $1 }, stdin: Data(stdin.utf8),
            timeout: .seconds(60))
    }

    /// Throws ``MissingPrerequisite`` when git is not installed.
    static func requireGit() throws {
        guard (try? ChildProcess.run("git", ["--version"], timeout: .seconds(20)))?.status == 0 else {
            throw MissingPrerequisite.error("git is not installed (scripts/bootstrap.sh test installs it)")
        }
    }

    /// Runs `coffer agent start --foreground` as a child this test owns, waits until it
    /// answers, and hands it the test vault (`coffer unlock`).
    func startAgentHoldingTheVault(file: StaticString = #filePath, line: UInt = #line) throws {
        try startAgent(file: file, line: line)
        let unlocked = try coffer(["unlock", "--for", "10m"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText, file: file, line: line)
    }

    /// The `key=value` lines of a helper's answer, in order.
    static func fields(_ text: String) -> [Field] {
        text.split(separator: "\n").map { line in
            guard let equals = line.firstIndex(of: "=") else { return Field(key: String(line), value: "") }
            return Field(key: String(line[..<equals]), value: String(line[line.index(after: equals)...]))
        }
    }

    struct Field: Equatable, CustomStringConvertible {
        let key: String
        let value: String
        var description: String { "\(key)=\(value)" }
    }
}
