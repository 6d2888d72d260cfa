import CofferTestSupport
import Foundation
import XCTest

/// `--json` of get, list, slots, check and doctor: parsed, with the field names docs/scripting.md documents.
final class JSONOutputTests: CLITestCase {
    private func object(_ output: ChildProcess.Output, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertTrue(output.stdoutText.hasSuffix("\n") && output.stdoutText.filter { $0 == "\n" }.count == 1, "one line", file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stderrText, file: file, line: line)
    }

    private func array(_ output: ChildProcess.Output, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]], output.stderrText, file: file, line: line)
    }

    func testGetAndListPrintTheItemAndGetAddsTheSecretInBase64() throws {
        try initVault()
        let secret = Data([0, 1, 2, 0xFF, 0x0A])
        XCTAssertEqual(try coffer(["set", "mail", "ada", "--label", "Work", "--comment", "yearly", "--expires-in", "3600"], stdin: secret).status, 0)

        let item = try object(try coffer(["get", "mail", "ada", "--json"]))
        XCTAssertEqual(item["secret"] as? String, secret.base64EncodedString())
        XCTAssertEqual(item["class"] as? String, "genericPassword")
        XCTAssertEqual(item["service"] as? String, "mail")
        XCTAssertEqual(item["account"] as? String, "ada")
        XCTAssertEqual(item["label"] as? String, "Work")
        XCTAssertEqual(item["comment"] as? String, "yearly")
        for key in ["created", "modified", "expiresAt"] {
            XCTAssertNotNil((item[key] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, key)
        }
        XCTAssertEqual(item["attributes"] as? [String: String], [:])

        let listed = try array(try coffer(["list", "--json"]))
        XCTAssertEqual(listed.count, 1)
        XCTAssertNil(listed[0]["secret"], "list never prints a secret")
        XCTAssertEqual(listed[0]["service"] as? String, "mail")
        assertFailure(try coffer(["get", "mail", "nobody", "--json"]), status: .notFound, message: "item not found")
    }

    func testSlotsCheckAndDoctor() throws {
        try initVault()
        let slots = try array(try coffer(["slots", "--json"]))
        XCTAssertEqual(slots.count, 1)
        XCTAssertEqual(slots[0]["id"] as? Int, 1)
        XCTAssertEqual(slots[0]["kind"] as? String, "passphrase")
        let kdf = try XCTUnwrap(slots[0]["kdf"] as? [String: Any])
        XCTAssertEqual(kdf["algorithm"] as? String, "argon2id")
        XCTAssertNotNil(kdf["operations"] as? Int)
        XCTAssertNotNil(kdf["memoryBytes"] as? Int)

        let check = try coffer(["check", "--json"])
        XCTAssertEqual(check.status, 0)
        let report = try object(check)
        XCTAssertEqual(report["sound"] as? Bool, true)
        XCTAssertEqual(report["soundRecords"] as? Int, 0)
        XCTAssertEqual(report["problems"] as? [String], [])

        let doctor = try object(try coffer(["doctor", "--json"]))
        for key in ["libsodium", "libsecret", "secretService"] { XCTAssertNotNil(doctor[key] as? String, key) }
        let vault = try XCTUnwrap(doctor["vault"] as? [String: Any])
        XCTAssertEqual(vault["path"] as? String, self.vault.path)
        XCTAssertEqual(vault["exists"] as? Bool, true)
        XCTAssertEqual(vault["fileMode"] as? String, "600")
        XCTAssertEqual(vault["folderMode"] as? String, "700")
        XCTAssertEqual((vault["id"] as? String)?.count, 32)
        XCTAssertEqual((vault["slots"] as? [[String: Any]])?.first?["kind"] as? String, "passphrase")
    }

    /// Each slot shows only what its kind has: a passphrase slot its `kdf`, a key-file slot no
    /// more than its id, kind and creation time (`-` in the text's third column).
    func testSlotsShowOnlyWhatTheirKindHas() throws {
        try initVault()
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", folder.file("k.key").path]).status, 0)
        let slots = try array(try coffer(["slots", "--json"]))
        XCTAssertEqual(slots.map { Set($0.keys) }, [["id", "kind", "kdf", "created"], ["id", "kind", "created"]])
        let lines = try coffer(["slots"]).stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(lines.map { $0.count }, [4, 4])
        XCTAssertTrue(lines[0][2].hasPrefix("argon2id ops="), lines[0][2])
        XCTAssertEqual(lines[1][1...2], ["keyfile", "-"])
    }

    func testCheckJSONListsProblemsAndExits3() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "mail", "ada"], stdin: Data("v".utf8)).status, 0)
        try RecordForgery.sealMalformedRecord(in: vault, passphrase: passphrase, service: "bad", account: "a")
        let check = try coffer(["check", "--json"])
        XCTAssertEqual(check.exitStatus, .integrityFailure)
        let report = try object(check)
        XCTAssertEqual(report["sound"] as? Bool, false)
        XCTAssertEqual(report["soundRecords"] as? Int, 1)
        XCTAssertEqual((report["problems"] as? [String])?.count, 1)
        XCTAssertEqual(check.stderrText, "coffer: the vault has 1 problem(s)\n", "as without --json; stdout holds the JSON alone")
    }

    func testDoctorJSONWithNoVault() throws {
        let doctor = try object(try coffer(["doctor", "--json"]))
        let vault = try XCTUnwrap(doctor["vault"] as? [String: Any])
        XCTAssertEqual(vault["exists"] as? Bool, false)
        XCTAssertNil(vault["slots"])
    }
}
