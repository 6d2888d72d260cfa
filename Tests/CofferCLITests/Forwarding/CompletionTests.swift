import CofferTestSupport
import Foundation
import XCTest

/// `coffer --generate-completion-script SHELL`, loaded by the shell it is for.
final class CompletionTests: CLITestCase {
    private func script(_ shell: String) throws -> URL {
        let generated = try coffer(["--generate-completion-script", shell])
        XCTAssertEqual(generated.status, 0, generated.stderrText)
        for name in ["init", "unlock", "backup", "import", "login"] {
            XCTAssertTrue(generated.stdoutText.contains(name), "\(shell) completion lacks \(name)")
        }
        let file = folder.file("coffer.\(shell)")
        try generated.stdout.write(to: file)
        return file
    }

    private func requireShell(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw MissingPrerequisite.error("\(path) is missing (scripts/bootstrap.sh test installs zsh and fish)")
        }
    }

    /// Bash loads the script and completes the subcommands from it.
    func testBash() throws {
        let file = try script("bash")
        let run = try ChildProcess.run("/bin/bash", ["-c", """
            source '\(file.path)'
            COMP_WORDS=(coffer ba); COMP_CWORD=1; COMP_LINE='coffer ba'; COMP_POINT=9
            _coffer; printf '%s\\n' "${COMPREPLY[@]}"
            """])
        XCTAssertEqual(run.status, 0, run.stderrText)
        XCTAssertTrue(run.stdoutText.split(separator: "\n").contains("backup"), run.stdoutText)
    }

    func testZshParsesIt() throws {
        try requireShell("/usr/bin/zsh")
        let run = try ChildProcess.run("/usr/bin/zsh", ["-n", try script("zsh").path])
        XCTAssertEqual(run.status, 0, run.stderrText)
    }

    func testFishParsesIt() throws {
        try requireShell("/usr/bin/fish")
        let run = try ChildProcess.run("/usr/bin/fish", ["--no-execute", try script("fish").path])
        XCTAssertEqual(run.status, 0, run.stderrText)
    }
}
