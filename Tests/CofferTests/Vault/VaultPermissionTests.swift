import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultPermissionTests: XCTestCase {
    let folder = TemporaryFolder()

    private func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }

    /// A new vault is 0600, and missing folders on its path are created 0700, whatever the umask.
    func testCreatedModes() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let url = folder.file("made/here/app.vault")
        let vault = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
        try vault.set(Data("x".utf8), for: .genericPassword(service: "s", account: "a"))
        XCTAssertEqual(try mode(url), 0o600)
        XCTAssertEqual(try mode(folder.file("made/here")), 0o700)
        XCTAssertEqual(try mode(folder.file("made")), 0o700)
        if FileManager.default.fileExists(atPath: url.path + "-wal") {
            XCTAssertEqual(try mode(URL(fileURLWithPath: url.path + "-wal")), 0o600)
        }
    }

    /// A vault readable or writable by group or others is refused with insecurePermissions.
    func testLooseFileModesAreRefused() throws {
        _ = try folder.makeVault()
        let path = folder.file("test.vault").path
        for loose in [0o640, 0o604, 0o660, 0o666] {
            chmod(path, mode_t(loose))
            XCTAssertThrows(
                .insecurePermissions(path: path, reason: "mode \(String(loose, radix: 8)) lets others in; expected 600"),
                try Vault.open(at: self.folder.file("test.vault"), configuration: .test()))
        }
        chmod(path, 0o400)
        XCTAssertNoThrow(try Vault.open(at: folder.file("test.vault"), configuration: .test()))
    }

    /// A vault in a folder that others can write (without the sticky bit) is refused.
    func testWritableFolderIsRefused() throws {
        let inner = folder.file("shared")
        _ = try Vault.create(at: inner.appendingPathComponent("app.vault"), with: .passphrase(testPassphrase), configuration: .test())
        chmod(inner.path, 0o777)
        XCTAssertThrows(
            .insecurePermissions(path: inner.path, reason: "writable by others"),
            try Vault.open(at: inner.appendingPathComponent("app.vault"), configuration: .test()))
        chmod(inner.path, 0o1777)
        XCTAssertNoThrow(try Vault.open(at: inner.appendingPathComponent("app.vault"), configuration: .test()))
    }

    /// A vault owned by another user is refused (checked only when the test can chown, i.e. as root).
    func testForeignOwnerIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to chown the file to another user") }
        _ = try folder.makeVault()
        let path = folder.file("test.vault").path
        XCTAssertEqual(chown(path, 65534, 65534), 0)
        XCTAssertThrows(.insecurePermissions(path: path, reason: "owned by another user"),
                        try Vault.open(at: self.folder.file("test.vault"), configuration: .test()))
    }

    /// Key files are made 0600 with 32 random bytes, never overwritten, and refused when loose or mis-sized.
    func testKeyFiles() throws {
        let url = folder.file("vault.key")
        try KeyFile.generate(at: url)
        XCTAssertEqual(try mode(url), 0o600)
        XCTAssertEqual(try Data(contentsOf: url).count, 32)
        XCTAssertThrows(.invalidArgument(reason: "a file already exists at \(url.path)"), try KeyFile.generate(at: url))

        _ = try folder.makeVault(credential: .keyFile(url))
        chmod(url.path, 0o644)
        XCTAssertThrows(.insecurePermissions(path: url.path, reason: "mode 644 lets others in; expected 600"),
                        try Vault.open(at: self.folder.file("test.vault"), unlock: .keyFile(url), configuration: .test()))

        let short = folder.file("short.key")
        try Data(count: 16).write(to: short)
        chmod(short.path, 0o600)
        XCTAssertThrows(.invalidArgument(reason: "a key file holds exactly 32 bytes"),
                        try Vault.open(at: self.folder.file("test.vault"), unlock: .keyFile(short), configuration: .test()))
    }

    /// Vault names cannot escape the vault folder.
    func testDefaultURLNames() throws {
        XCTAssertEqual(try Vault.defaultURL(name: "work").lastPathComponent, "work.vault")
        XCTAssertEqual(try Vault.defaultURL().deletingLastPathComponent().lastPathComponent, "coffer")
        for bad in ["", "../etc", "a/b", ".hidden", String(repeating: "x", count: 129)] {
            XCTAssertThrows(
                .invalidArgument(reason: "a vault name is 1-128 letters, digits, '.', '_' or '-', not starting with '.'"),
                try Vault.defaultURL(name: bad))
        }
    }
}
