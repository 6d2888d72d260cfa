import CofferTestSupport
import Foundation
import XCTest

/// What the `coffer access` tests share: JSON readers, the real path and digest of a file, and
/// the committed format 2 vault.
class AccessCLITestCase: CLITestCase {
    /// The passphrase of the committed format 2 vault (Tests/CofferTests/Fixtures/v2.vault).
    static let fixturePassphrase = "coffer fixture v2"

    /// `output`'s stdout as one JSON object, after checking that the command succeeded.
    func object(_ output: ChildProcess.Output, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(output.status, 0, output.stderrText, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText, file: file, line: line)
    }

    /// `output`'s stdout as a JSON array of objects, after checking that the command succeeded.
    func array(_ output: ChildProcess.Output, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        XCTAssertEqual(output.status, 0, output.stderrText, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]], output.stdoutText, file: file, line: line)
    }

    /// `coffer access show SERVICE ACCOUNT --json`.
    func show(_ service: String = "mail", _ account: String = "ada", environment: [String: String?] = [:]) throws -> [String: Any] {
        try object(try coffer(["access", "show", service, account, "--json"], environment: environment))
    }

    /// `coffer access log --json` and `extra` arguments.
    func log(_ extra: [String] = [], environment: [String: String?] = [:]) throws -> [[String: Any]] {
        try array(try coffer(["access", "log", "--json"] + extra, environment: environment))
    }

    /// The real path of `path` (symbolic links resolved), as the kernel names a running program.
    func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The real path of the `coffer` under test.
    var cofferPath: String { realPath(BuiltProducts.executable("coffer").path) }

    /// The SHA-256 of the file at `path` in hex, by coreutils' sha256sum.
    func sha256(_ path: String) throws -> String {
        let output = try ChildProcess.run("/usr/bin/sha256sum", [path])
        XCTAssertEqual(output.status, 0, output.stderrText)
        return String(output.stdoutText.prefix(64))
    }

    /// An executable file of this test's own (a copy of /usr/bin/true) at `name` in its folder.
    func ownExecutable(_ name: String) throws -> String {
        let path = folder.file(name).path
        try FileManager.default.copyItem(atPath: "/usr/bin/true", toPath: path)
        return path
    }

    /// Puts a copy of the committed format 2 vault at the test's vault path (mode 0600); its
    /// passphrase is ``fixturePassphrase``.
    func copyFormat2Vault() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CofferTests/Fixtures/v2.vault")
        try FileManager.default.copyItem(at: fixture, to: vault)
        XCTAssertEqual(chmod(vault.path, 0o600), 0)
    }
}
