import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The vault's access policy (docs/vault-format.md, 8.1): stored encrypted and bound to its vault,
/// required in a version 3 file, re-encrypted by a key rotation.
final class VaultAccessPolicyTests: XCTestCase {
    let folder = TemporaryFolder()

    private func policyBlob(_ url: URL) throws -> [UInt8] {
        try XCTUnwrap(try RawVaultFile(url).rows("SELECT policy FROM access_settings").first?.first as? [UInt8])
    }

    /// A new vault's policy is confirm; a set policy is read back by a vault opened afresh.
    func testNewVaultConfirmsAndSetPolicyPersists() throws {
        let vault = try folder.makeVault()
        XCTAssertEqual(try vault.accessPolicy(), .confirm)
        for policy in [AccessPolicy.strict, .open, .confirm, .strict] {
            try vault.setAccessPolicy(policy)
            XCTAssertEqual(try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test()).accessPolicy(), policy)
        }
        XCTAssertEqual(try policyBlob(folder.file("test.vault")).count, 41)
        vault.lock()
        XCTAssertThrows(.locked, try vault.accessPolicy())
    }

    /// Without the key, a version 3 vault's policy cannot be told (it is sealed), while a version 2
    /// vault's is open, what its migration will give it (`coffer doctor` reads it so); reading it
    /// leaves the file as it was.
    func testThePolicyWhileLockedIsKnownOnlyBeforeVersion3() throws {
        let vault = try folder.makeVault()
        vault.lock()
        XCTAssertNil(try vault.accessPolicyWhileLocked())
        let old = try VaultFixtureV2Tests.copyFixture(into: folder)
        let before = try Data(contentsOf: old)
        XCTAssertEqual(try Vault.open(at: old).accessPolicyWhileLocked(), .open)
        XCTAssertEqual(try Data(contentsOf: old), before)
    }

    /// A policy copied from another vault (same byte, other vault id and key) does not open: the
    /// vault reports it corrupt instead of taking any policy, `verify` names it, and setting the
    /// policy anew repairs it.
    func testPolicyFromAnotherVaultIsRefused() throws {
        let vault = try folder.makeVault()
        try vault.setAccessPolicy(.strict)
        let other = try folder.makeVault("other.vault")
        try other.setAccessPolicy(.open)
        let foreign = try policyBlob(folder.file("other.vault"))
        _ = try RawVaultFile(folder.file("test.vault")).rows("UPDATE access_settings SET policy = ?1", [foreign])
        XCTAssertThrows(.corruptVault(reason: "the access policy does not open"), try vault.accessPolicy())
        XCTAssertEqual(try vault.verify().problems, [.accessPolicy("the access policy does not open")])
        XCTAssertThrows(.corruptVault(reason: "the access policy does not open"),
                        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)]))
        try vault.setAccessPolicy(.strict)
        XCTAssertEqual(try vault.accessPolicy(), .strict)
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// An item's record put in the policy's place, and a policy whose byte is not 0, 1 or 2 (sealed
    /// with the vault's own key), do not give a policy either.
    func testPolicyOfTheWrongShapeIsRefused() throws {
        let vault = try folder.makeVault()
        for plaintext in [[UInt8(3)], [1, 1], []] {
            try vault.withUnlockedKeys { connection, keys throws(CofferError) in
                let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: VaultFormat.policyAssociatedData(vaultID: vault.vaultID))
                try connection.with("UPDATE access_settings SET policy = ?1") { statement throws(CofferError) in
                    try statement.bind(.blob(sealed))
                    try statement.run()
                }
            }
            if plaintext.count == 1 {
                XCTAssertThrows(.corruptVault(reason: "the access policy does not open"), try vault.accessPolicy(), "\(plaintext)")
            } else {
                XCTAssertThrows(.corruptVault(reason: "the access policy is missing or damaged"),
                                try Vault.open(at: self.folder.file("test.vault"), configuration: .test()), "\(plaintext)")
            }
        }
    }

    /// Deleting the policy row, truncating it or lengthening it makes a version 3 file
    /// corrupt when it is opened, before any key is needed: a missing policy never reads as a
    /// default.
    func testMissingPolicyRowMakesTheVaultCorrupt() throws {
        for (index, statement) in [
            "DELETE FROM access_settings", "UPDATE access_settings SET policy = substr(policy, 1, 40)",
            "UPDATE access_settings SET policy = policy || x'00'",
        ].enumerated() {
            let url = folder.file("v\(index).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try RawVaultFile(url).execute(statement)
            XCTAssertThrows(.corruptVault(reason: "the access policy is missing or damaged"), try Vault.open(at: url, configuration: .test()), statement)
        }
    }

    /// Rotating the vault key re-encrypts the policy: it still reads after the rotation, and the
    /// blob from before no longer opens.
    func testRotationReencryptsThePolicy() throws {
        let vault = try folder.makeVault()
        try vault.setAccessPolicy(.strict)
        let before = try policyBlob(folder.file("test.vault"))
        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)])
        XCTAssertEqual(try vault.accessPolicy(), .strict)
        XCTAssertNotEqual(try policyBlob(folder.file("test.vault")), before)
        _ = try RawVaultFile(folder.file("test.vault")).rows("UPDATE access_settings SET policy = ?1", [before])
        XCTAssertThrows(.corruptVault(reason: "the access policy does not open"), try vault.accessPolicy())
    }
}
