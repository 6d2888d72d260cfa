import CofferTestSupport
import Foundation
import XCTest

/// `coffer access policy`: a new vault is confirm, a migrated one stays open, and each change
/// is kept and logged.
final class AccessPolicyCommandTests: AccessCLITestCase {
    /// `coffer init` makes a confirm vault; the policy goes to strict and open and back, as
    /// text and JSON; each change is one audit entry by coffer itself (no item, front door cli,
    /// decision credential), and setting the policy it already has logs nothing.
    func testNewVaultIsConfirmAndThePolicyRoundTrips() throws {
        try initVault()
        XCTAssertEqual(try coffer(["access", "policy"]).stdoutText, "confirm\n")
        XCTAssertEqual(try object(try coffer(["access", "policy", "--json"])) as NSDictionary, ["policy": "confirm"])

        let strict = try coffer(["access", "policy", "strict"])
        XCTAssertEqual(strict.status, 0, strict.stderrText)
        XCTAssertEqual(strict.stdoutText, "policy: strict (was confirm)\n")
        XCTAssertEqual(try coffer(["access", "policy"]).stdoutText, "strict\n")
        XCTAssertEqual(try object(try coffer(["access", "policy", "open", "--json"])) as NSDictionary, ["policy": "open", "previous": "strict"])
        XCTAssertEqual(try coffer(["access", "policy", "open"]).stdoutText, "policy: open (was open)\n")
        XCTAssertEqual(try coffer(["access", "policy", "confirm"]).status, 0)
        XCTAssertEqual(try coffer(["access", "policy"]).stdoutText, "confirm\n")

        let entries = try log()
        XCTAssertEqual(entries.count, 3, "three changes; setting open again changed nothing")
        for entry in entries {
            XCTAssertEqual(entry["action"] as? String, "policy")
            XCTAssertEqual(entry["frontDoor"] as? String, "cli")
            XCTAssertEqual(entry["decision"] as? String, "credential")
            XCTAssertNil(entry["item"])
            XCTAssertEqual((entry["program"] as? [String: Any])?["executable"] as? String, cofferPath)
        }
        XCTAssertEqual(try coffer(["access", "policy", "lenient"]).exitStatus, .usage)
    }

    /// A vault from format 2 reads as open, and stays open when its first write migrates it.
    func testAMigratedVaultStaysOpen() throws {
        try copyFormat2Vault()
        let environment = ["COFFER_PASSPHRASE": Self.fixturePassphrase]
        XCTAssertEqual(try coffer(["access", "policy"], environment: environment).stdoutText, "open\n")
        let written = try coffer(["set", "new", "item"], stdin: Data("s".utf8), environment: environment)
        XCTAssertEqual(written.status, 0, written.stderrText)
        XCTAssertEqual(try coffer(["access", "policy"], environment: environment).stdoutText, "open\n")
        XCTAssertEqual((try show("new", "item", environment: environment)["owner"] as? [String: Any])?["executable"] as? String, cofferPath)
    }

    /// A key file opens the vault for a policy change as a passphrase does (the credential
    /// options every command takes).
    func testAKeyFileSlotChangesThePolicy() throws {
        try initVault()
        let key = folder.file("vault.key").path
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key]).status, 0)
        let changed = try coffer(["--keyfile", key, "access", "policy", "strict"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(changed.status, 0, changed.stderrText)
        XCTAssertEqual(try coffer(["access", "policy"]).stdoutText, "strict\n")
    }

    /// The secret-service backend has no access lists: a usage error.
    func testTheSecretServiceBackendHasNoPolicy() throws {
        try initVault()
        assertFailure(
            try coffer(["access", "policy"], environment: ["COFFER_BACKEND": "secret-service"]), status: .usage,
            message: "access lists, the policy and the audit log belong to a vault, not to --backend secret-service")
    }
}
