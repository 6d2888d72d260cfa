import Coffer
import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// The git and docker helpers are programs like any other on the agent's socket: a copy of a
/// helper at another path is another program, and a login it stored is refused to the helper
/// itself under `confirm` with no prompter, in each protocol's own way of failing, with exit
/// status 13.
final class CredentialHelperAccessTests: CredentialHelperTestCase {
    /// A copy of the helper at `path` named `name`, another program for the agent, with the
    /// full programs' library it loads beside it.
    private func copy(_ path: String, as name: String) throws -> String {
        let copy = folder.file(name).path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        chmod(copy, 0o755)
        let library = folder.file("libCofferCommands.so").path
        if !FileManager.default.fileExists(atPath: library) {
            try FileManager.default.copyItem(atPath: BuiltProducts.executable("libCofferCommands.so").path, toPath: library)
        }
        return copy
    }

    private func startAgentAndUnlock() throws {
        try initVault()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
    }

    /// git: no answer on stdout, one line on stderr naming the program and `coffer access
    /// grant`, exit 13 (git then asks elsewhere); the copy that stored the login reads it.
    func testTheGitHelperIsRefusedAnotherProgramsLoginWithNoAnswer() throws {
        try startAgentAndUnlock()
        let other = try copy(Self.gitHelperPath, as: "git-credential-other")
        let stored = try helper(other, ["store"], stdin: Data("protocol=https\nhost=git.example\nusername=ada\npassword=s3cret\n\n".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        XCTAssertTrue(try helper(other, ["get"], stdin: Data("protocol=https\nhost=git.example\n\n".utf8)).stdoutText.contains("password=s3cret"))

        let refused = try gitHelper(["get"], "protocol=https\nhost=git.example\n\n")
        XCTAssertEqual(refused.exitStatus, .accessDenied, refused.stderrText)
        XCTAssertEqual(refused.stdout, Data(), "no answer")
        let program = URL(fileURLWithPath: Self.gitHelperPath).resolvingSymlinksInPath().path
        assertRefusal(refused.stderrText, "git-credential-coffer: ", program: program)
    }

    /// docker: the error on stdout, as docker's helpers write theirs, and exit 13 where the
    /// protocol's other errors exit 1.
    func testTheDockerHelperIsRefusedAnotherProgramsCredentialsWithExit13() throws {
        try startAgentAndUnlock()
        let other = try copy(Self.dockerHelperPath, as: "docker-credential-other")
        let credentials = #"{"ServerURL":"https://registry.example","Username":"ada","Secret":"s3cret"}"#
        XCTAssertEqual(try helper(other, ["store"], stdin: Data(credentials.utf8)).status, 0)
        XCTAssertTrue(try helper(other, ["get"], stdin: Data("https://registry.example".utf8)).stdoutText.contains("s3cret"))

        let refused = try dockerHelper(["get"], "https://registry.example")
        XCTAssertEqual(refused.exitStatus, .accessDenied, refused.stdoutText)
        let program = URL(fileURLWithPath: Self.dockerHelperPath).resolvingSymlinksInPath().path
        assertRefusal(refused.stdoutText, "", program: program)
        XCTAssertEqual(try dockerHelper(["erase"], "https://registry.example").exitStatus, .accessDenied, "nor may it erase them")
    }
}
