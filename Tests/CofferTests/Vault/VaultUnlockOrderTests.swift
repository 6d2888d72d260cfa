import Coffer
import Foundation
import XCTest

/// `unlock(withFirstOf:)`: explicit, ordered fallback between credentials.
final class VaultUnlockOrderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-unlock-order-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Only errors that say "this credential did not open it" pass the turn to the next credential.
    func testWhichErrorsAreCredentialFailures() {
        let failures: [CofferError] = [.wrongPassphrase, .wrongKey, .locked, .timeout, .secretServiceUnavailable(reason: "x")]
        let others: [CofferError] = [
            .itemNotFound, .integrityFailure, .corruptVault(reason: "x"), .storageUnavailable(reason: "x"),
            .invalidArgument(reason: "x"), .insecurePermissions(path: "/p", reason: "x"), .vaultNotFound(path: "/p"),
        ]
        XCTAssertTrue(failures.allSatisfy(\.isCredentialFailure))
        XCTAssertFalse(others.contains(where: \.isCredentialFailure))
    }

    /// A wrong credential passes to the next; the one that opens the vault is returned.
    func testTheFirstCredentialThatOpensWins() throws {
        let key = SecureBytes.random(count: 32)
        let url = folder.appendingPathComponent("test.vault")
        _ = try Vault.create(at: url, with: .key(key))

        let vault = try Vault.open(at: url)
        let opener = try vault.unlock(withFirstOf: [.key(.random(count: 32)), .key(key)])
        XCTAssertFalse(vault.isLocked)
        XCTAssertEqual(opener.description, "key(redacted)")
        XCTAssertNoThrow(try Vault.open(at: url, unlockWithFirstOf: [.passphrase("no"), .key(key)]))
    }

    /// When every credential fails the last one's error is thrown; an error that is not a credential failure stops at once.
    func testFailuresAndStops() throws {
        let key = SecureBytes.random(count: 32)
        let url = folder.appendingPathComponent("test.vault")
        _ = try Vault.create(at: url, with: .key(key))
        let vault = try Vault.open(at: url)

        XCTAssertThrowsError(try vault.unlock(withFirstOf: [.key(.random(count: 32)), .passphrase("no")])) {
            XCTAssertEqual($0 as? CofferError, .wrongPassphrase)
        }
        XCTAssertThrowsError(try vault.unlock(withFirstOf: [.keyFile(folder.appendingPathComponent("missing")), .key(key)])) { error in
            guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(vault.isLocked, "a missing key file is not a reason to try the next credential")
        XCTAssertThrowsError(try vault.unlock(withFirstOf: [])) { error in
            guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
        }
    }
}
