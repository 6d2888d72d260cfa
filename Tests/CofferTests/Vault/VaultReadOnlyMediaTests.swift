import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// A vault on a file system mounted read-only (found by `make torture`: every read failed with
/// "cannot be opened", because SQLite could not create the -shm there).
final class VaultReadOnlyMediaTests: XCTestCase {
    let folder = TemporaryFolder()
    private var mounted: URL?

    override func tearDown() {
        if let mounted { umount2(mounted.path, Int32(MNT_DETACH)) }
    }

    /// `folder/writable` seen read-only at `folder/readonly` (a read-only bind mount).
    private func readOnlyView() throws -> (writable: URL, readOnly: URL) {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to bind-mount a folder read-only") }
        let writable = folder.file("writable"), readOnly = folder.file("readonly")
        for url in [writable, readOnly] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        guard mount(writable.path, readOnly.path, nil, UInt(MS_BIND), nil) == 0 else { throw XCTSkip("cannot bind-mount: \(describeErrno())") }
        mounted = readOnly
        guard mount(nil, readOnly.path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else {
            throw XCTSkip("cannot remount read-only: \(describeErrno())")
        }
        return (writable, readOnly)
    }

    func testAVaultOnReadOnlyMediaReadsAndRefusesWrites() throws {
        let (writable, readOnly) = try readOnlyView()
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        do {
            let vault = try Vault.create(at: writable.appendingPathComponent("app.vault"), with: .passphrase(testPassphrase), configuration: .test())
            try vault.set(Data("s3cret".utf8), for: id)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: writable.appendingPathComponent("app.vault-wal").path), "closing checkpointed the WAL")

        let vault = try Vault.open(at: readOnly.appendingPathComponent("app.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try vault.secret(for: id), Data("s3cret".utf8))
        XCTAssertEqual(try vault.items(matching: ItemQuery()).map(\.id), [id])
        XCTAssertThrows(.storageUnavailable(reason: "the vault file cannot be written (read-only media or permissions)"),
                        try vault.set(Data("new".utf8), for: id))
        XCTAssertEqual(try vault.secret(for: id), Data("s3cret".utf8))
    }

    func testAVaultWithCommitsStillInItsWALIsRefusedRatherThanReadWithoutThem() throws {
        let (writable, readOnly) = try readOnlyView()
        let writer = try Vault.create(at: writable.appendingPathComponent("app.vault"), with: .passphrase(testPassphrase), configuration: .test())
        try writer.set(Data("in the wal".utf8), for: .genericPassword(service: "mail", account: "ada"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: writable.appendingPathComponent("app.vault-wal").path))
        XCTAssertThrows(
            .storageUnavailable(reason: "the vault is on read-only media with commits still in its -wal; copy the vault and its -wal to writable media"),
            try Vault.open(at: readOnly.appendingPathComponent("app.vault"), configuration: .test()))
        _ = writer
    }
}
