import CofferTestSupport
import Foundation
import XCTest

/// `coffer import --from secret-service` against gnome-keyring on the test bus, with items that
/// secret-tool and python-keyring (independent writers) stored.
final class ImportCommandTests: CLITestCase {
    private let service = "com.example.coffer-import-tests"

    override func setUpWithError() throws {
        try SecretServiceTestEnvironment.requireAvailable()
        try clearKeyring()
    }

    override func tearDownWithError() throws {
        try clearKeyring()
    }

    private func clearKeyring() throws {
        for other in [service, service + ".other"] { _ = try SecretServiceTestEnvironment.secretTool(["clear", "service", other]) }
    }

    private func secretToolStore(_ account: String, _ secret: String, service: String? = nil) throws {
        let stored = try SecretServiceTestEnvironment.secretTool(
            ["store", "--label=Label of \(account)", "service", service ?? self.service, "username", account], stdin: Data(secret.utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
    }

    private func lookup(_ account: String) throws -> String {
        try SecretServiceTestEnvironment.secretTool(["lookup", "service", service, "username", account]).stdoutText
    }

    /// python-keyring's own Secret Service backend (Debian's python3-keyring), not Coffer's.
    private func pythonKeyringSet(_ account: String, _ secret: String) throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python),
              try ChildProcess.run(python, ["-c", "import keyring"]).status == 0
        else {
            throw MissingPrerequisite.error("python-keyring is missing (scripts/bootstrap.sh test installs python3-keyring)")
        }
        let script = "import sys, keyring; keyring.set_password(sys.argv[1], sys.argv[2], sys.stdin.read())"
        let set = try ChildProcess.run(
            python, ["-c", script, service, account], environment: ["PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"],
            stdin: Data(secret.utf8))
        XCTAssertEqual(set.status, 0, set.stderrText)
    }

    /// With the vault held by the agent, `import` writes through the agent: no credential is
    /// needed, and the agent's copy is what a direct read then finds.
    func testImportGoesThroughTheAgentThatHoldsTheVault() throws {
        try initVault()
        try secretToolStore("erin", "e-secret")
        XCTAssertEqual(try coffer(["agent", "start"]).status, 0)
        defer { _ = try? coffer(["agent", "stop"]) }
        XCTAssertEqual(try coffer(["unlock"]).status, 0)
        let imported = try coffer(["import", "--from", "secret-service", "--service", service], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(imported.status, 0, imported.stderrText)
        XCTAssertTrue(imported.stdoutText.hasPrefix("copied\tgeneric\t\(service)\terin\n"), imported.stdoutText)
        XCTAssertEqual(try coffer(["get", service, "erin", "--no-agent"]).stdoutText, "e-secret")
    }

    func testImportCopiesOnceReportsSkipsAndLeavesTheOriginals() throws {
        try initVault()
        try secretToolStore("alice", "a-secret")
        try secretToolStore("bob", "b-secret")
        try pythonKeyringSet("carol", "c-secret")
        try secretToolStore("dave", "elsewhere", service: service + ".other")

        let first = try coffer(["import", "--from", "secret-service", "--service", service])
        XCTAssertEqual(first.status, 0, first.stderrText)
        XCTAssertEqual(first.stdoutText, """
            copied\tgeneric\t\(service)\talice
            copied\tgeneric\t\(service)\tbob
            copied\tgeneric\t\(service)\tcarol
            3 copied, 0 unchanged, 0 conflict, 0 expired

            """)
        XCTAssertEqual(try coffer(["get", service, "alice"]).stdoutText, "a-secret")
        XCTAssertEqual(try coffer(["get", service, "carol"]).stdoutText, "c-secret")
        XCTAssertTrue(try coffer(["list", "--service", service]).stdoutText.contains("\talice\tLabel of alice\n"), "the label came along")
        XCTAssertEqual(try coffer(["get", service + ".other", "dave"]).exitStatus, .notFound, "--service limits the import")

        let second = try coffer(["import", "--from", "secret-service", "--service", service])
        XCTAssertEqual(second.stdoutText.split(separator: "\n").last, "0 copied, 3 unchanged, 0 conflict, 0 expired")

        try secretToolStore("bob", "b-changed")
        let conflict = try coffer(["import", "--from", "secret-service", "--service", service, "--json"])
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: conflict.stdout) as? [[String: String]])
        XCTAssertEqual(entries.map { $0["account"] ?? "" }, ["alice", "bob", "carol"])
        XCTAssertEqual(entries.map { $0["outcome"] ?? "" }, ["unchanged", "conflict", "unchanged"])
        XCTAssertEqual(Set(entries.map { $0["class"] ?? "" }), ["genericPassword"])
        XCTAssertEqual(try coffer(["get", service, "bob"]).stdoutText, "b-secret", "a conflict keeps the vault's secret")

        let replaced = try coffer(["import", "--from", "secret-service", "--service", service, "--replace"])
        XCTAssertTrue(replaced.stdoutText.contains("copied\tgeneric\t\(service)\tbob\n"), replaced.stdoutText)
        XCTAssertEqual(try coffer(["get", service, "bob"]).stdoutText, "b-changed")

        XCTAssertEqual(try lookup("alice"), "a-secret", "the originals stay")
        XCTAssertEqual(try lookup("bob"), "b-changed")
        XCTAssertEqual(try lookup("carol"), "c-secret")
    }

    /// An expired item is reported and left in the keyring: the import deletes nothing there.
    func testAnExpiredItemIsSkippedAndNotDeleted() throws {
        try initVault()
        let stored = try coffer(["--backend", "secret-service", "set", service, "erin", "--expires-in", "1"], stdin: Data("short".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        usleep(1_500_000)
        let imported = try coffer(["import", "--from", "secret-service", "--service", service])
        XCTAssertEqual(imported.stdoutText, "expired\tgeneric\t\(service)\terin\n0 copied, 0 unchanged, 0 conflict, 1 expired\n")
        XCTAssertEqual(try lookup("erin"), "short")
    }
}
