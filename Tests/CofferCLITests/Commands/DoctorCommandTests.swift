import CofferTestSupport
import Foundation
import XCTest

/// `coffer doctor`'s access checks: the policy when it can be told, and warnings where
/// per-application access cannot hold (docs/security.md, "Per-application access").
final class DoctorCommandTests: AccessCLITestCase {
    private func doctor(_ arguments: [String] = [], environment: [String: String?] = [:]) throws -> (text: String, vault: [String: Any]) {
        let text = try coffer(["doctor"] + arguments, environment: environment)
        XCTAssertEqual(text.status, 0, text.stderrText)
        let json = try object(try coffer(["doctor", "--json"] + arguments, environment: environment))
        return (text.stdoutText, try XCTUnwrap(json["vault"] as? [String: Any]))
    }

    /// A new vault, with its passphrase given: policy confirm, no warning; set open, it is warned about.
    func testANewVaultIsConfirmWithoutWarningsUntilOpened() throws {
        try initVault()
        var (text, vault) = try doctor()
        XCTAssertTrue(text.contains("  access policy: confirm\n"), text)
        XCTAssertFalse(text.contains("warning"), text)
        XCTAssertEqual(vault["policy"] as? String, "confirm")
        XCTAssertEqual(vault["warnings"] as? [String], [])
        XCTAssertEqual(try coffer(["access", "policy", "open"]).status, 0)
        (text, vault) = try doctor()
        XCTAssertEqual(vault["policy"] as? String, "open")
        XCTAssertEqual((vault["warnings"] as? [String])?.count, 1)
        XCTAssertTrue(text.contains("  warning: the access policy is open"), text)
    }

    /// A vault from format 2 is open, which doctor tells with no credential and warns about,
    /// naming the command that changes it; once the policy is confirm the warning is gone.
    /// Without a credential a format 3 vault's policy is unknown (it is encrypted), and so is it
    /// with a wrong passphrase, which doctor does not raise.
    func testAnOpenPolicyIsWarnedAboutUntilChanged() throws {
        try copyFormat2Vault()
        let none: [String: String?] = ["COFFER_PASSPHRASE": nil]
        var (text, vault) = try doctor(environment: none)
        XCTAssertTrue(text.contains("  access policy: open\n"), text)
        let warning = "the access policy is open: every program of yours reads every item. An existing vault stays open until its user changes it: coffer access policy confirm"
        XCTAssertTrue(text.contains("  warning: \(warning)\n"), text)
        XCTAssertEqual(vault["warnings"] as? [String], [warning])

        XCTAssertEqual(try coffer(["access", "policy", "confirm"], environment: ["COFFER_PASSPHRASE": Self.fixturePassphrase]).status, 0)
        (text, vault) = try doctor(environment: ["COFFER_PASSPHRASE": Self.fixturePassphrase])
        XCTAssertTrue(text.contains("  access policy: confirm\n"), text)
        XCTAssertFalse(text.contains("warning"), text)
        (text, vault) = try doctor(environment: none)
        XCTAssertTrue(text.contains("  access policy: unknown (the vault is locked: give its passphrase or key file to read it)\n"), text)
        XCTAssertNil(vault["policy"])
        (text, vault) = try doctor(environment: ["COFFER_PASSPHRASE": "wrong"])
        XCTAssertNil(vault["policy"])
    }

    /// A key-file slot is warned about: for certain when the key file given is readable (as
    /// every program of the user can read it), as a question when none is given; the warning
    /// goes with the slot.
    func testAKeyFileSlotIsWarnedAbout() throws {
        try initVault()
        let key = folder.file("vault.key").path
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", key]).status, 0)
        var (text, vault) = try doctor(["--keyfile", key], environment: ["COFFER_PASSPHRASE": nil])
        let certain = "slot 2 opens with a key file, and \(key) is readable by every program of yours: per-application access cannot hold (docs/security.md)"
        XCTAssertEqual(vault["warnings"] as? [String], [certain])
        XCTAssertTrue(text.contains("  warning: \(certain)\n"), text)
        XCTAssertEqual(vault["policy"] as? String, "confirm", "the key file opened the vault")

        (text, vault) = try doctor()
        XCTAssertEqual(vault["warnings"] as? [String], [
            "slot 2 opens with a key file: if every program of yours can read it, per-application access cannot hold (docs/security.md); name it with --keyfile to check",
        ])
        XCTAssertEqual(try coffer(["slots", "remove", "2"]).status, 0)
        (text, vault) = try doctor()
        XCTAssertEqual(vault["warnings"] as? [String], [])
    }
}
