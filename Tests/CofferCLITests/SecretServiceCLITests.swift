import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// `coffer` with the Secret Service: the backend, the slot and `doctor`, run as a program
/// against gnome-keyring on the test bus.
final class SecretServiceCLITests: XCTestCase {
    private var folder: URL!
    /// Changes to this process's environment for each run (`nil` removes a variable).
    private var environment: [String: String?] = [:]
    private var vaultPath: String { folder.appendingPathComponent("v/test.vault").path }
    private let service = "com.example.coffer-cli-tests"

    override func setUpWithError() throws {
        try SecretServiceTestEnvironment.requireAvailable()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-ss-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        environment = [
            "COFFER_VAULT": vaultPath, "COFFER_PASSPHRASE": nil, "COFFER_KEYFILE": nil, "COFFER_BACKEND": nil, "COFFER_UNLOCK": nil,
        ]
        _ = try coffer(["--backend", "secret-service", "delete", service, "alice"])
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func coffer(_ arguments: [String], stdin: String = "", extra: [String: String?] = [:]) throws -> ChildProcess.Output {
        try ChildProcess.run(
            BuiltProducts.executable("coffer"), arguments, environment: environment.merging(extra) { $1 }, stdin: Data(stdin.utf8),
            timeout: .seconds(30))
    }

    /// set, get, list and delete work on the Secret Service, and interoperate with secret-tool both ways.
    func testItemCommandsUseTheSecretService() throws {
        let set = try coffer(["--backend", "secret-service", "set", service, "alice", "--label", "Alice"], stdin: "from-coffer")
        XCTAssertEqual(set.status, 0, set.stderrText)
        XCTAssertEqual(try SecretServiceTestEnvironment.secretTool(["lookup", "service", service, "username", "alice"]).stdoutText, "from-coffer")

        let stored = try SecretServiceTestEnvironment.secretTool(
            ["store", "--label=x", "service", service, "username", "alice"], stdin: Data("from-secret-tool".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        XCTAssertEqual(try coffer(["get", service, "alice", "--backend", "secret-service"]).stdoutText, "from-secret-tool",
                       "global options work after the subcommand too")

        let list = try coffer(["--backend", "secret-service", "list", "--service", service])
        XCTAssertEqual(list.stdoutText, "generic\t\(service)\talice\tx\n")

        XCTAssertEqual(try coffer(["--backend", "secret-service", "delete", service, "alice"]).status, 0)
        let missing = try coffer(["--backend", "secret-service", "get", service, "alice"])
        XCTAssertEqual(missing.exitStatus, .notFound, "absent is 'not found' (1), never an error status")
        XCTAssertEqual(missing.stderrText, "coffer: item not found\n")
    }

    /// `init --secret-service-slot` makes a vault that then opens with no passphrase; doctor shows it all,
    /// and warns that per-application access cannot hold, since every program of the user can read the slot's key.
    func testInitWithASecretServiceSlotOpensWithoutAPassphrase() throws {
        let created = try coffer(["init", "--kdf", "interactive", "--passphrase-fd", "0", "--secret-service-slot"], stdin: "pw")
        XCTAssertEqual(created.status, 0, created.stderrText)
        XCTAssertTrue(created.stdoutText.contains("Secret Service"), created.stdoutText)

        XCTAssertEqual(try coffer(["set", service, "bob"], stdin: "vault-secret").status, 0)
        XCTAssertEqual(try coffer(["get", service, "bob"]).stdoutText, "vault-secret", "no passphrase was given")

        let slots = try coffer(["slots"]).stdoutText.split(separator: "\n").map { $0.split(separator: "\t")[1] }
        XCTAssertEqual(slots, ["passphrase", "secret-service"])

        let doctor = try coffer(["doctor"])
        XCTAssertEqual(doctor.status, 0, doctor.stderrText)
        for expected in ["libsodium: \(LibraryVersions.libsodium)", "secret service: available", "vault: \(vaultPath)",
                         "file mode: 600", "folder mode: 700", "permissions: ok", "secret-service\t-",
                         "  warning: slot 2 keeps the vault key in the Secret Service, where every program of yours can read it: "
                             + "per-application access cannot hold (docs/security.md)\n"] {
            XCTAssertTrue(doctor.stdoutText.contains(expected), "doctor lacks \(expected):\n\(doctor.stdoutText)")
        }
    }

    /// A Secret Service slot added with `slots add` survives `rotate-key`, and `slots remove` deletes its key from the keyring.
    func testSlotCommandsManageTheSecretServiceSlot() throws {
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive", "--passphrase-fd", "0"], stdin: "pw").status, 0)
        XCTAssertEqual(try coffer(["set", service, "dora"], stdin: "kept", extra: ["COFFER_PASSPHRASE": "pw"]).status, 0)
        let added = try coffer(["slots", "add", "--add-secret-service"], extra: ["COFFER_PASSPHRASE": "pw"])
        XCTAssertEqual(added.status, 0, added.stderrText)
        XCTAssertEqual(added.stdoutText, "added slot 2: Secret Service\n")

        XCTAssertEqual(try coffer(["rotate-key"]).exitStatus, .usage, "rotation must open every slot: the passphrase one too")
        let rotated = try coffer(["rotate-key"], extra: ["COFFER_PASSPHRASE": "pw"])
        XCTAssertEqual(rotated.status, 0, rotated.stderrText)
        XCTAssertEqual(try coffer(["get", service, "dora"]).stdoutText, "kept", "the Secret Service slot was rewrapped")
        XCTAssertEqual(try coffer(["get", service, "dora"], extra: ["COFFER_PASSPHRASE": "pw"]).stdoutText, "kept")

        let vaultID = try XCTUnwrap(try coffer(["doctor"]).stdoutText.split(separator: "\n").first { $0.hasPrefix("  id: ") }?.dropFirst(6))
        let removed = try coffer(["slots", "remove", "2"], extra: ["COFFER_PASSPHRASE": "pw"])
        XCTAssertEqual(removed.status, 0, removed.stderrText)
        let key = try SecretServiceTestEnvironment.secretTool(["lookup", "xdg:schema", "coffer.VaultKey", "coffer:vault", String(vaultID)])
        XCTAssertNotEqual(key.status, 0, "the slot's key left the keyring")
        XCTAssertEqual(try coffer(["get", service, "dora"]).exitStatus, .locked, "with no Secret Service slot, it wants the passphrase")
    }

    /// Without any session bus, a vault with a Secret Service slot fails fast; the passphrase opens it only when --unlock asks for it.
    func testFallbackToThePassphraseIsExplicit() throws {
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive", "--passphrase-fd", "0", "--secret-service-slot"], stdin: "pw").status, 0)
        XCTAssertEqual(try coffer(["set", service, "carol"], stdin: "kept").status, 0)

        environment.merge(SecretServiceTestEnvironment.environmentWithoutSessionBus(runtimeFolder: folder)) { $1 }
        let refused = try coffer(["get", service, "carol"])
        XCTAssertEqual(refused.exitStatus, .unavailable, refused.stderrText)
        XCTAssertTrue(refused.stderrText.hasPrefix("coffer: Secret Service unavailable: no D-Bus session bus"), refused.stderrText)
        XCTAssertEqual(refused.stdout, Data())

        let fallback = try coffer(["get", service, "carol", "--unlock", "secret-service,passphrase"], extra: ["COFFER_PASSPHRASE": "pw"])
        XCTAssertEqual(fallback.status, 0, fallback.stderrText)
        XCTAssertEqual(fallback.stdoutText, "kept")
    }
}
