import CofferTestSupport
import Foundation
import Glibc
import XCTest
@testable import Coffer

/// `VaultCredential.serviceCredential(name:)`: the key file's 32 bytes from
/// `$CREDENTIALS_DIRECTORY`, as systemd hands them to a service, checked as key files are.
final class ServiceCredentialTests: XCTestCase {
    let folder = TemporaryFolder()
    var credentials: URL { folder.file("credentials") }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() {
        unsetenv("CREDENTIALS_DIRECTORY")
        super.tearDown()
    }

    /// A vault with a key-file slot, and that key file copied into the credentials folder as `name`.
    private func vaultWithCredential(named name: String, mode: Int = 0o400) throws -> URL {
        let keyFile = folder.file("\(name).key")
        try KeyFile.generate(at: keyFile)
        let vault = try folder.makeVault("\(name).vault")
        try vault.addKeySlot(.keyFile(keyFile))
        let copy = credentials.appendingPathComponent(name)
        try FileManager.default.copyItem(at: keyFile, to: copy)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: copy.path)
        setenv("CREDENTIALS_DIRECTORY", credentials.path, 1)
        return vault.url
    }

    func testACredentialsDirectoryKeyOpensTheVaultsKeyFileSlot() throws {
        let url = try vaultWithCredential(named: SystemdCredentials.defaultServiceCredentialName)
        let vault = try Vault.open(at: url, configuration: .test())
        try vault.unlock(with: .serviceCredential())
        XCTAssertFalse(vault.isLocked)
        let named = try vaultWithCredential(named: "other-name")
        XCTAssertNoThrow(try Vault.open(at: named, configuration: .test()).unlock(with: .serviceCredential(name: "other-name")))
    }

    func testACredentialOthersCanReadIsRefusedAsAKeyFileIs() throws {
        let url = try vaultWithCredential(named: "coffer-vault-key", mode: 0o644)
        XCTAssertThrowsError(try Vault.open(at: url, configuration: .test()).unlock(with: .serviceCredential())) { error in
            guard case .insecurePermissions = error as? CofferError else { return XCTFail("\(error)") }
        }
    }

    func testAMissingCredentialOrFolderIsACredentialFailureSoThePassphraseStillOpens() throws {
        let url = try vaultWithCredential(named: "coffer-vault-key")
        let vault = try Vault.open(at: url, configuration: .test())
        XCTAssertThrowsError(try vault.unlock(with: .serviceCredential(name: "absent"))) { error in
            XCTAssertEqual(error as? CofferError, .machineKey(.serviceCredentialMissing(name: "absent")))
        }
        unsetenv("CREDENTIALS_DIRECTORY")
        XCTAssertThrowsError(try vault.unlock(with: .serviceCredential())) { error in
            XCTAssertEqual(error as? CofferError, .machineKey(.serviceCredentialMissing(name: "coffer-vault-key")))
            XCTAssertTrue((error as? CofferError)?.isCredentialFailure ?? false)
        }
        XCTAssertTrue(try vault.unlock(withFirstOf: [.serviceCredential(), .passphrase(testPassphrase)]).isPassphrase)
        XCTAssertThrowsError(try vault.unlock(with: .serviceCredential(name: "../vault.key")), "a name never leaves the folder")
    }
}
