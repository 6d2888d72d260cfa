import CofferTestSupport
import Foundation
import XCTest

/// `coffer backup`: a copy that opens with the same credentials, consistent while writers run.
final class BackupCommandTests: CLITestCase {
    func testACopyOpensWithTheSamePassphraseAndIsNeverOverwritten() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("s3cret".utf8)).status, 0)
        let copy = folder.file("backups/copy.vault")
        let made = try coffer(["backup", copy.path], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(made.status, 0, made.stderrText)
        XCTAssertEqual(made.stdoutText, "backed up to \(copy.path)\n", "no passphrase needed")
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: ["COFFER_VAULT": copy.path]).stdoutText, "s3cret")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int, 0o600)

        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("changed".utf8)).status, 0)
        assertFailure(try coffer(["backup", copy.path]), status: .alreadyExists, message: "a vault already exists at \(copy.path)")
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: ["COFFER_VAULT": copy.path]).stdoutText, "s3cret", "the old copy stands")
    }

    /// Backups taken while three processes write are each sound (`check` clean) and hold a
    /// consistent set: every writer's items form a prefix of what it wrote.
    func testBackupsWhileWritersRunAreConsistent() throws {
        let key = folder.file("k.key")
        let keyed: [String: String?] = ["COFFER_PASSPHRASE": nil, "COFFER_KEYFILE": key.path]
        XCTAssertEqual(try coffer(["init"], environment: keyed).status, 0)
        let count = 150
        let writers = try (0..<3).map { index in
            try ChildProcess.start(BuiltProducts.executable("coffer-test-helper").path, ["write-loop", vault.path, key.path, "w\(index)", "\(count)"])
        }
        var copies: [URL] = []
        for index in 0..<5 {
            let copy = folder.file("copies/\(index).vault")
            let made = try coffer(["backup", copy.path], environment: keyed)
            XCTAssertEqual(made.status, 0, made.stderrText)
            copies.append(copy)
            usleep(50_000)
        }
        for writer in writers { XCTAssertEqual(try writer.wait(timeout: .seconds(120)).status, 0) }
        copies.append(folder.file("copies/final.vault"))
        XCTAssertEqual(try coffer(["backup", copies.last!.path], environment: keyed).status, 0)

        for copy in copies {
            let environment = keyed.merging(["COFFER_VAULT": copy.path]) { $1 }
            XCTAssertEqual(try coffer(["check"], environment: environment).status, 0, copy.lastPathComponent)
            let accounts = Set(try coffer(["list"], environment: environment).stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[2]) })
            for index in 0..<3 {
                let written = (0..<count).filter { accounts.contains("w\(index)-\($0)") }
                XCTAssertEqual(written, Array(0..<written.count), "\(copy.lastPathComponent): writer \(index)'s items are a prefix")
            }
            if copy == copies.last { XCTAssertEqual(accounts.count, 3 * count) }
        }
    }
}
