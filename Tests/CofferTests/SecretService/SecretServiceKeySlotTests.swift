import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// Vault key slots whose key lives in the Secret Service (gnome-keyring on the test bus).
final class SecretServiceKeySlotTests: XCTestCase {
    private let folder = TemporaryFolder()
    private let passphrase = "correct horse battery staple"
    private let fastCost = Vault.Configuration(passphraseCost: PassphraseCost(operations: 1, memoryBytes: 8192))
    private let item = ItemID.genericPassword(service: "com.example.slot-tests", account: "alice")

    override func setUpWithError() throws {
        try SecretServiceTestEnvironment.requireAvailable()
    }

    /// A vault with a passphrase slot and a Secret Service slot, holding one item.
    private func vaultWithSecretServiceSlot(_ name: String = "test") throws -> (vault: Vault, slot: KeySlot) {
        let vault = try folder.makeVault("\(name).vault", credential: .passphrase(passphrase), configuration: fastCost)
        try vault.set(Data("s3cret".utf8), for: item)
        let slot = try vault.addKeySlot(.secretService())
        return (vault, slot)
    }

    /// The KEK item of a slot, through secret-tool, by the documented attributes.
    private func lookUpKey(vault: Vault, slot: KeySlot) throws -> ChildProcess.Output {
        try SecretServiceTestEnvironment.secretTool(
            ["lookup", "xdg:schema", "coffer.VaultKey", "coffer:vault", vault.id, "coffer:slot", String(slot.id)])
    }

    /// With the Secret Service slot, the vault opens with no passphrase and reads its items.
    func testVaultOpensThroughTheSecretServiceAlone() throws {
        let (vault, slot) = try vaultWithSecretServiceSlot()
        XCTAssertEqual(slot.kind, .secretService)
        XCTAssertEqual(try vault.keySlots().map(\.kind), [.passphrase(fastCost.passphraseCost), .secretService])

        let reopened = try Vault.open(at: vault.url, unlock: .secretService())
        XCTAssertEqual(try reopened.secret(for: item), Data("s3cret".utf8))
    }

    /// The slot's key is a 32-byte item named by the vault id and slot number, and is not listed as a password.
    func testTheKeyIsStoredUnderTheDocumentedAttributes() throws {
        let (vault, slot) = try vaultWithSecretServiceSlot()
        let lookup = try lookUpKey(vault: vault, slot: slot)
        XCTAssertEqual(lookup.status, 0, lookup.stderrText)
        XCTAssertEqual(lookup.stdout.count, 32, "the KEK is 32 bytes")
        XCTAssertFalse(try SecretServiceStore().items(matching: .all).contains { $0.id.service.contains(vault.id) })
    }

    /// Without its key in the Secret Service the slot does not open; the passphrase is used only when the caller lists it.
    func testFallbackToThePassphraseOnlyWhenAsked() throws {
        let (vault, slot) = try vaultWithSecretServiceSlot()
        let cleared = try SecretServiceTestEnvironment.secretTool(
            ["clear", "xdg:schema", "coffer.VaultKey", "coffer:vault", vault.id, "coffer:slot", String(slot.id)])
        XCTAssertEqual(cleared.status, 0, cleared.stderrText)

        let locked = try Vault.open(at: vault.url, configuration: fastCost)
        XCTAssertThrowsError(try locked.unlock(with: .secretService())) { XCTAssertEqual($0 as? CofferError, .wrongKey) }
        XCTAssertTrue(locked.isLocked, "no silent fallback")

        let opener = try locked.unlock(withFirstOf: [.secretService(), .passphrase(passphrase)])
        XCTAssertEqual(opener.description, "passphrase(redacted)")
        XCTAssertEqual(try locked.secret(for: item), Data("s3cret".utf8))

        let again = try Vault.open(at: vault.url, configuration: fastCost)
        XCTAssertThrowsError(try again.unlock(withFirstOf: [.secretService(), .passphrase("wrong")])) {
            XCTAssertEqual($0 as? CofferError, .wrongPassphrase, "the last credential's error")
        }
    }

    /// A key in the Secret Service that does not unwrap the vault key fails as a wrong key, not a crash or a corrupt vault.
    func testAForeignKeyIsAWrongKey() throws {
        let (vault, slot) = try vaultWithSecretServiceSlot()
        let replaced = try SecretServiceTestEnvironment.secretTool(
            ["store", "--label=forged", "xdg:schema", "coffer.VaultKey", "coffer:vault", vault.id, "coffer:slot", String(slot.id),
             "application", "coffer"],
            stdin: Data(repeating: 0x41, count: 32))
        XCTAssertEqual(replaced.status, 0, replaced.stderrText)
        XCTAssertThrowsError(try Vault.open(at: vault.url, unlock: .secretService())) { XCTAssertEqual($0 as? CofferError, .wrongKey) }
    }

    /// A vault cannot be created with a Secret Service slot alone, so losing the keyring never loses the vault.
    func testCreatingWithOnlyASecretServiceSlotIsRefused() throws {
        XCTAssertThrowsError(try Vault.create(at: folder.file("only.vault"), with: .secretService())) { error in
            guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("only.vault").path))
    }

    /// Removing the slot deletes its key from the Secret Service, and the vault no longer opens that way.
    func testRemovingTheSlotDeletesItsKey() throws {
        let (vault, slot) = try vaultWithSecretServiceSlot()
        try vault.removeKeySlot(id: slot.id)
        XCTAssertNotEqual(try lookUpKey(vault: vault, slot: slot).status, 0, "the key is gone")
        XCTAssertThrowsError(try Vault.open(at: vault.url, unlock: .secretService())) { XCTAssertEqual($0 as? CofferError, .wrongKey) }
    }

    /// Rotating the vault key rewraps the Secret Service slot when it is given, and refuses to drop it when not.
    func testRotationKeepsTheSecretServiceSlot() throws {
        let (vault, _) = try vaultWithSecretServiceSlot()
        XCTAssertThrowsError(try vault.rotateVaultKey(credentials: [.passphrase(passphrase)])) { error in
            guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
        }
        try vault.rotateVaultKey(credentials: [.passphrase(passphrase), .secretService()])
        let reopened = try Vault.open(at: vault.url, unlock: .secretService())
        XCTAssertEqual(try reopened.secret(for: item), Data("s3cret".utf8))
    }

    /// Two vaults keep separate keys, named by their ids.
    func testVaultsDoNotShareKeys() throws {
        let (first, firstSlot) = try vaultWithSecretServiceSlot("first")
        let (second, _) = try vaultWithSecretServiceSlot("second")
        try first.removeKeySlot(id: firstSlot.id)
        XCTAssertThrowsError(try Vault.open(at: first.url, unlock: .secretService()))
        XCTAssertEqual(try Vault.open(at: second.url, unlock: .secretService()).secret(for: item), Data("s3cret".utf8))
    }
}
