import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultLockTests: XCTestCase {
    let folder = TemporaryFolder()
    let id = ItemID.genericPassword(service: "s", account: "a")

    /// A wrong passphrase is refused with wrongPassphrase, and the vault stays locked.
    func testWrongPassphrase() throws {
        _ = try folder.makeVault()
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertThrows(.wrongPassphrase, try vault.unlock(with: .passphrase("wrong horse battery staple")))
        XCTAssertThrows(.wrongPassphrase, try vault.unlock(with: .passphrase("")))
        XCTAssertTrue(vault.isLocked)
        XCTAssertThrows(.locked, try vault.secret(for: self.id))
    }

    /// `check` tells whether a credential opens the vault and changes nothing: a locked vault
    /// stays locked, an unlocked one stays unlocked, and a wrong credential throws as `unlock` does.
    func testCheckingACredentialLeavesTheLockAsItWas() throws {
        _ = try folder.makeVault()
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        try vault.check(.passphrase(testPassphrase))
        XCTAssertTrue(vault.isLocked)
        XCTAssertThrows(.wrongPassphrase, try vault.check(.passphrase("wrong horse battery staple")))
        try vault.unlock(with: .passphrase(testPassphrase))
        XCTAssertThrows(.wrongPassphrase, try vault.check(.passphrase("wrong horse battery staple")))
        XCTAssertFalse(vault.isLocked)
        XCTAssertEqual(try vault.secret(for: id), nil)
    }

    /// A key file or raw key that opens no slot is refused with wrongKey; a raw key of the wrong size
    /// is an invalid argument.
    func testWrongKeys() throws {
        try KeyFile.generate(at: folder.file("right.key"))
        try KeyFile.generate(at: folder.file("wrong.key"))
        _ = try folder.makeVault(credential: .keyFile(folder.file("right.key")))
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        XCTAssertThrows(.wrongKey, try vault.unlock(with: .keyFile(self.folder.file("wrong.key"))))
        XCTAssertThrows(.wrongKey, try vault.unlock(with: .key(.random(count: 32))))
        XCTAssertThrows(.invalidArgument(reason: "a vault key is 32 bytes"), try vault.unlock(with: .key(.random(count: 16))))
        XCTAssertThrows(.wrongPassphrase, try vault.unlock(with: .passphrase(testPassphrase)))
        try vault.unlock(with: .keyFile(folder.file("right.key")))
        XCTAssertFalse(vault.isLocked)
    }

    /// Locking drops the keys: reads and writes throw `locked` (never nil), nothing is written,
    /// and unlocking again restores access.
    func testLockAndUnlock() throws {
        let vault = try folder.makeVault()
        try vault.set(Data("v".utf8), for: id)
        vault.lock()
        XCTAssertTrue(vault.isLocked)
        XCTAssertThrows(.locked, try vault.secret(for: self.id))
        XCTAssertThrows(.locked, try vault.item(for: self.id))
        XCTAssertThrows(.locked, try vault.items(matching: .all))
        XCTAssertThrows(.locked, try vault.set(Data("w".utf8), for: self.id))
        XCTAssertThrows(.locked, try vault.remove(self.id))
        try vault.unlock(with: .passphrase(testPassphrase))
        XCTAssertEqual(try vault.secret(for: id), Data("v".utf8))
    }

    /// With auto-lock configured, an idle vault locks itself; one in use does not.
    func testAutoLockAfterIdle() throws {
        let vault = try folder.makeVault(configuration: .test(autoLockAfter: .milliseconds(300)))
        for _ in 0..<6 {
            _ = try vault.secret(for: id)
            usleep(100_000)
        }
        XCTAssertFalse(vault.isLocked, "used every 100 ms, so never idle for 300 ms")
        let deadline = Date().addingTimeInterval(5)
        while !vault.isLocked && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(vault.isLocked)
        XCTAssertThrows(.locked, try vault.secret(for: self.id))
    }

    /// A vault that another process re-keyed reads as locked (not as empty) until unlocked again.
    func testRotationElsewhereLocksThisInstance() throws {
        let writer = try folder.makeVault()
        try writer.set(Data("v".utf8), for: id)
        let reader = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try reader.secret(for: id), Data("v".utf8))

        try writer.rotateVaultKey(credentials: [.passphrase(testPassphrase)])

        XCTAssertThrows(.locked, try reader.secret(for: self.id))
        XCTAssertTrue(reader.isLocked)
        try reader.unlock(with: .passphrase(testPassphrase))
        XCTAssertEqual(try reader.secret(for: id), Data("v".utf8))
        XCTAssertNil(try reader.secret(for: .genericPassword(service: "s", account: "other")))
    }

    /// A passphrase given as bytes must be valid UTF-8: before, invalid bytes became U+FFFD, so
    /// `ff ff ff ff` and `fe fd fc 80` opened the same slot. Now both are refused, and a valid
    /// byte passphrase opens exactly the slot its text does (NFC included).
    func testPassphraseBytesMustBeValidUTF8() throws {
        for bytes: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0xFE, 0xFD, 0xFC, 0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82]] {
            XCTAssertThrows(.invalidArgument(reason: "the passphrase is not valid UTF-8"),
                            try VaultCredential.passphrase(utf8: SecureBytes(copying: bytes)))
        }
        _ = try folder.makeVault(credential: .passphrase("caf\u{E9}"))
        let vault = try Vault.open(at: folder.file("test.vault"), configuration: .test())
        try vault.unlock(with: try .passphrase(utf8: SecureBytes(copying: Array("cafe\u{301}".utf8))))
        XCTAssertFalse(vault.isLocked)
    }

    /// A credential's description never shows the passphrase or key.
    func testCredentialDescriptionIsRedacted() {
        let credentials: [VaultCredential] = [
            .passphrase("hunter2"), try! .passphrase(utf8: SecureBytes(copying: Array("hunter2".utf8))),
            .key(SecureBytes(copying: Array("hunter2hunter2hunter2hunter2hunt".utf8))),
        ]
        for credential in credentials {
            var dumped = ""
            dump(credential, to: &dumped)
            for text in ["\(credential)", String(reflecting: credential), dumped] {
                XCTAssertFalse(text.contains("hunter2"), text)
            }
        }
    }
}
