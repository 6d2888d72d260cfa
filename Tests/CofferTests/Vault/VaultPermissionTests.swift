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

    /// A key file that is a FIFO is refused at once with a typed error: it is opened without
    /// blocking and checked through its descriptor (before the fix, open() waited forever).
    func testFIFOKeyFileIsRefusedWithoutBlocking() throws {
        let keyURL = folder.file("vault.key")
        try KeyFile.generate(at: keyURL)
        _ = try folder.makeVault(credential: .keyFile(keyURL))
        let fifo = folder.file("fifo.key")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let start = ContinuousClock.now
        XCTAssertThrows(.insecurePermissions(path: fifo.path, reason: "not a regular file"),
                        try Vault.open(at: self.folder.file("test.vault"), unlock: .keyFile(fifo), configuration: .test()))
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
    }

    /// A symbolic link in a safe folder that points to a vault in a folder others can write is
    /// refused for reads and writes: the real file and its real folder are checked.
    func testSymlinkToAVaultInAnUnsafeFolderIsRefused() throws {
        let shared = folder.file("shared")
        _ = try Vault.create(at: shared.appendingPathComponent("app.vault"), with: .passphrase(testPassphrase), configuration: .test())
        chmod(shared.path, 0o777)
        let link = folder.file("safe/app.vault")
        try FileManager.default.createDirectory(at: folder.file("safe"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: shared.appendingPathComponent("app.vault"))
        XCTAssertThrows(.insecurePermissions(path: shared.path, reason: "writable by others"),
                        try Vault.open(at: link, unlock: .passphrase(testPassphrase), configuration: .test()))
        XCTAssertThrows(.insecurePermissions(path: shared.path, reason: "writable by others"),
                        try Vault.openOrCreate(at: link, unlock: .passphrase(testPassphrase), configuration: .test()))

        chmod(shared.path, 0o700)
        let vault = try Vault.open(at: link, unlock: .passphrase(testPassphrase), configuration: .test())
        try vault.set(Data("x".utf8), for: .genericPassword(service: "s", account: "a"))
        XCTAssertEqual(vault.url.path, link.path, "a link to a safe place is followed and keeps its name")
    }

    /// A -wal or -shm that is a symbolic link (for example planted by another user to a file
    /// of theirs) is refused: SQLite never follows it, and the vault does not open.
    func testSymlinkedWALOrSHMIsRefused() throws {
        for suffix in ["-wal", "-shm"] {
            let url = folder.file("link\(suffix).vault")
            _ = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            let target = folder.file("elsewhere\(suffix)")
            _ = FileManager.default.createFile(atPath: target.path, contents: Data(), attributes: [.posixPermissions: 0o666])
            try? FileManager.default.removeItem(atPath: url.path + suffix)
            try FileManager.default.createSymbolicLink(atPath: url.path + suffix, withDestinationPath: target.path)
            XCTAssertThrowsError(try Vault.open(at: url, configuration: .test()), suffix) { error in
                XCTAssertNotEqual(error as? CofferError, .vaultNotFound(path: url.path + suffix))
            }
        }
    }

    /// A -wal or -shm that others can write is refused through the descriptor SQLite opened,
    /// whatever its path says afterwards.
    func testLooseWALOrSHMIsRefusedThroughItsDescriptor() throws {
        for suffix in ["-wal", "-shm"] {
            let url = folder.file("loose\(suffix).vault")
            let vault = try Vault.create(at: url, with: .passphrase(testPassphrase), configuration: .test())
            try vault.set(Data("x".utf8), for: .genericPassword(service: "s", account: "a"))
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.path + suffix))
            chmod(url.path + suffix, 0o666)
            XCTAssertThrows(.insecurePermissions(path: url.path + suffix, reason: "mode 666 lets others in; expected 600"),
                            try Vault.open(at: url, configuration: .test()), suffix)
        }
    }

    /// A vault without its -wal and -shm (another process checkpointed and removed them, or
    /// they never existed) opens: they are optional. A -wal that is a dangling link (what a
    /// removal between two checks looked like before) never reads as "no vault".
    func testWALAndSHMAreOptional() throws {
        do {
            let vault = try folder.makeVault()
            try vault.set(Data("x".utf8), for: .genericPassword(service: "s", account: "a"))
        }
        let path = folder.file("test.vault").path
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "closing removed the WAL")
        let vault = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "s", account: "a")), Data("x".utf8))

        let other = folder.file("dangling.vault")
        _ = try Vault.create(at: other, with: .passphrase(testPassphrase), configuration: .test())
        try FileManager.default.createSymbolicLink(atPath: other.path + "-wal", withDestinationPath: folder.file("gone").path)
        XCTAssertThrowsError(try Vault.open(at: other, configuration: .test())) { error in
            XCTAssertNotEqual(error as? CofferError, .vaultNotFound(path: other.path + "-wal"))
        }
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
