import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// Vault.backup: a consistent copy that opens with the same credentials, never written over anything.
final class VaultBackupTests: XCTestCase {
    let folder = TemporaryFolder()

    func testACopyOpensWithTheSameCredentialsAndIsPrivate() throws {
        let vault = try folder.makeVault()
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        try vault.set(Data("s3cret".utf8), for: id)
        vault.lock()
        let copy = folder.file("backups/nested/copy.vault")
        try vault.backup(to: copy)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.file("backups/nested").path), ["copy.vault"], "no temporary file, -wal or -shm left")

        let opened = try Vault.open(at: copy, unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try opened.secret(for: id), Data("s3cret".utf8))
        XCTAssertEqual(opened.id, vault.id, "a copy, not a new vault")
        XCTAssertTrue(try opened.verify().isClean)
        let attributes = try FileManager.default.attributesOfItem(atPath: copy.path)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: folder.file("backups/nested").path)[.posixPermissions] as? Int, 0o700)
    }

    func testNothingIsWrittenOverAnExistingFileAndAFolderOthersCanWriteIsRefused() throws {
        let vault = try folder.makeVault()
        let taken = folder.file("taken.vault")
        try Data("keep".utf8).write(to: taken)
        XCTAssertThrows(.vaultExists(path: taken.path), try vault.backup(to: taken))
        XCTAssertEqual(try Data(contentsOf: taken), Data("keep".utf8))

        let open = folder.file("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        XCTAssertThrowsError(try vault.backup(to: open.appendingPathComponent("copy.vault"))) { error in
            guard case .insecurePermissions? = error as? CofferError else { return XCTFail("\(error)") }
        }
    }
}
