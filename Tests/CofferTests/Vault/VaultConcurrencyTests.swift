import CofferTestSupport
import Dispatch
import Foundation
import XCTest
@testable import Coffer

final class VaultConcurrencyTests: XCTestCase {
    let folder = TemporaryFolder()
    let helper = BuiltProducts.executable("coffer-test-helper").path
    let service = "com.example.multiprocess"

    /// Many threads writing and reading one Vault at once: every write lands, every read sees a
    /// complete value, and no error escapes.
    func testManyThreads() throws {
        let vault = try folder.makeVault()
        let shared = ItemID.genericPassword(service: "s", account: "shared")
        try vault.set(Data("initial".utf8), for: shared)
        let failures = ErrorLog()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                do {
                    try vault.set(Data("t\(thread)-\(index)".utf8), for: .genericPassword(service: "s", account: "t\(thread)-\(index)"))
                    try vault.set(Data("from-\(thread)".utf8), for: shared)
                    let value = try vault.secret(for: shared).map { String(decoding: $0, as: UTF8.self) }
                    if value != "initial" && !(value?.hasPrefix("from-") ?? false) { failures.add("torn read: \(value ?? "nil")") }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        XCTAssertEqual(failures.entries, [])
        XCTAssertEqual(try vault.items(matching: ItemQuery(service: "s")).count, 8 * 25 + 1)
    }

    /// Two vault instances in one process (separate connections) writing at once never see
    /// "database is locked".
    func testTwoConnections() throws {
        let first = try folder.makeVault()
        let second = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        let failures = ErrorLog()
        DispatchQueue.concurrentPerform(iterations: 2) { which in
            let vault = which == 0 ? first : second
            for index in 0..<40 {
                do { try vault.set(Data(), for: .genericPassword(service: "s", account: "\(which)-\(index)")) } catch {
                    failures.add("\(error)")
                }
            }
        }
        XCTAssertEqual(failures.entries, [])
        XCTAssertEqual(try first.items(matching: .all).count, 80)
    }

    /// Opening a vault this process already has open, and letting the second handle go, leaves
    /// the first handle's SQLite locks in place: another process still finds its shared lock,
    /// and that process closing its own connection does not take the -wal away from under it
    /// (it would, as the last one out, if the lock were gone). Closing any descriptor of a file
    /// drops all of the process's POSIX locks on it, so opening a vault must not open and close
    /// a descriptor of its own (the agent re-opens the login vault at every login).
    func testOpeningTheSameVaultAgainLeavesTheFirstOnesLocks() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        let vault = try folder.makeVault(credential: .keyFile(folder.file("k.key")))
        let path = folder.file("test.vault").path, keyPath = folder.file("k.key").path
        try vault.set(Data("before".utf8), for: .genericPassword(service: service, account: "before"))
        XCTAssertEqual(try sharedLockHolder(path), "\(getpid())", "an open vault in WAL mode keeps SQLite's shared lock")

        _ = try Vault.open(at: folder.file("test.vault"), unlock: .keyFile(folder.file("k.key")), configuration: .test())
        XCTAssertEqual(try sharedLockHolder(path), "\(getpid())", "the first handle's lock survives a second open and close")

        let other = try ChildProcess.run(helper, ["open-loop", path, keyPath, "other", "1"])
        XCTAssertEqual(other.status, 0, other.stderrText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"), "another process's close left the -wal to the open vault")
        try vault.set(Data("after".utf8), for: .genericPassword(service: service, account: "after"))
        let reopened = try Vault.open(at: folder.file("test.vault"), unlock: .keyFile(folder.file("k.key")), configuration: .test())
        XCTAssertEqual(try reopened.secret(for: .genericPassword(service: service, account: "other")), Data("0".utf8))
        XCTAssertEqual(try reopened.secret(for: .genericPassword(service: service, account: "after")), Data("after".utf8))
    }

    /// A file this process has open as a vault (or its -shm) is never opened by path and closed
    /// again, which would drop SQLite's locks: as a key file it is refused, naming the vault, and
    /// a program's digest is not taken of it; the vault's lock stays. Once the vault is closed,
    /// the same file reads as a key file again (and is refused for its size). Before, any program
    /// of the user could have the agent read a held vault as a key file (an `unlock` naming it),
    /// and writes were then lost (found by review on 2026-11-29).
    func testAFileThisProcessHasOpenAsAVaultIsNotOpenedByPath() throws {
        var vault: Vault? = try folder.makeVault()
        let path = folder.file("test.vault").path
        try vault?.set(Data("s".utf8), for: .genericPassword(service: service, account: "a"))
        for file in [path, path + "-shm"] {
            XCTAssertThrows(.invalidArgument(reason: "\(file) is a vault this process has open"), try KeyFile.read(at: URL(fileURLWithPath: file)))
            XCTAssertNil(SHA256Hasher.digest(ofFileAt: file))
        }
        XCTAssertEqual(try sharedLockHolder(path), "\(getpid())")
        vault = nil
        XCTAssertThrows(.invalidArgument(reason: "a key file holds exactly 32 bytes"), try KeyFile.read(at: URL(fileURLWithPath: path)))
    }

    /// A vault opened in rollback-journal mode gets its -wal and -shm at its first write (the
    /// switch to WAL): from then on they are refused by path as the vault is.
    func testTheWALAndSHMMadeByTheSwitchToWALAreNotOpenedByPath() throws {
        do { try folder.makeVault().set(Data("v".utf8), for: .genericPassword(service: service, account: "a")) }
        let url = folder.file("test.vault")
        try RawVaultFile(url).execute("PRAGMA journal_mode = DELETE")
        let vault = try Vault.open(at: url, unlock: .passphrase(testPassphrase), configuration: .test())
        try vault.set(Data("w".utf8), for: .genericPassword(service: service, account: "a"))
        for file in [url.path + "-wal", url.path + "-shm"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file))
            XCTAssertThrows(.invalidArgument(reason: "\(file) is a vault this process has open"), try KeyFile.read(at: URL(fileURLWithPath: file)))
        }
    }

    private func sharedLockHolder(_ path: String) throws -> String {
        try SQLiteSharedLock.holder(of: path)
    }

    /// Two other processes and this one write to one vault at once; all writes land, none fails.
    func testTwoProcessesWritingAtOnce() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        let vault = try folder.makeVault(credential: .keyFile(folder.file("k.key")))
        let vaultPath = folder.file("test.vault").path, keyPath = folder.file("k.key").path
        let writers = try ["p1", "p2"].map {
            try ChildProcess.start(helper, ["write-loop", vaultPath, keyPath, $0, "60"])
        }
        for index in 0..<30 { try vault.set(Data("local".utf8), for: .genericPassword(service: service, account: "local-\(index)")) }
        for writer in writers {
            let outcome = try writer.wait(timeout: .seconds(120))
            XCTAssertEqual(outcome.status, 0, outcome.stderrText)
            XCTAssertEqual(outcome.stdoutText, "done\n")
        }
        let accounts = Set(try vault.items(matching: ItemQuery(service: service)).map(\.id.account))
        XCTAssertEqual(accounts.count, 150)
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: service, account: "p2-59")), Data("p2-secret-59".utf8))
    }

    /// Processes racing to create the same vault all end up with one vault, never a half-made
    /// one, and no temporary creation file is left behind.
    ///
    /// The vault's own -wal and -shm may stay: when the last two connections close at once, each
    /// still holds its shared lock while the other tries the exclusive lock that removing them
    /// takes, so neither removes them (SQLite's rule, harmless: the next open reads the -wal).
    func testConcurrentCreation() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        let path = folder.file("raced.vault").path
        let racers = try (0..<4).map { _ in try ChildProcess.start(helper, ["open-or-create", path, folder.file("k.key").path]) }
        let outcomes = try racers.map { try $0.wait(timeout: .seconds(60)) }
        XCTAssertEqual(outcomes.map(\.status), [0, 0, 0, 0], outcomes.map(\.stderrText).joined())
        XCTAssertEqual(Set(outcomes.map(\.stdoutText)).count, 1, "every process sees the same vault")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        XCTAssertEqual(left.filter { !["raced.vault-wal", "raced.vault-shm"].contains($0) }.sorted(), ["k.key", "raced.vault"])
        let vault = try Vault.open(at: folder.file("raced.vault"), unlock: .keyFile(folder.file("k.key")), configuration: .test())
        XCTAssertTrue(try vault.verify().isClean)
    }

    /// Eight processes opening, reading, writing and closing one vault at once: none ever
    /// fails, in particular never with "no vault at …-wal" while another removes the -wal.
    func testManyProcessesOpeningAndClosingNeverFail() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        _ = try folder.makeVault(credential: .keyFile(folder.file("k.key")))
        let vaultPath = folder.file("test.vault").path, keyPath = folder.file("k.key").path
        let processes = try (0..<8).map { try ChildProcess.start(helper, ["open-loop", vaultPath, keyPath, "p\($0)", "60"]) }
        for process in processes {
            let outcome = try process.wait(timeout: .seconds(240))
            XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        }
    }

    /// Temporary files that a killed `create` left behind (`<name>.<12 hex>.creating`, and
    /// their -wal and -shm) are removed by the next creation in that folder once they are a
    /// minute old; fresh ones, other files and other vaults' files are left alone.
    func testStaleCreationLeftoversAreRemoved() throws {
        let stale = ["app.vault.0123456789ab.creating", "app.vault.0123456789ab.creating-wal", "app.vault.ba9876543210.creating-shm"]
        let kept = ["app.vault.fedcba987654.creating", "app.vault.notours.creating", "other.vault.0123456789ab.creating", "notes.txt"]
        for name in stale + kept { _ = FileManager.default.createFile(atPath: folder.file(name).path, contents: Data("x".utf8)) }
        let old = Date().addingTimeInterval(-120)
        for name in stale + ["app.vault.notours.creating", "other.vault.0123456789ab.creating", "notes.txt"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.file(name).path)
        }
        _ = try Vault.create(at: folder.file("app.vault"), with: .passphrase(testPassphrase), configuration: .test())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted(), (kept + ["app.vault"]).sorted())
    }

    /// A write acknowledged by a process survives that process being killed with SIGKILL.
    func testAcknowledgedWriteSurvivesKill9() throws {
        try KeyFile.generate(at: folder.file("k.key"))
        _ = try folder.makeVault(credential: .keyFile(folder.file("k.key")))
        let writer = try ChildProcess.start(helper, ["write-then-wait", folder.file("test.vault").path, folder.file("k.key").path, "survivor"])
        XCTAssertTrue(writer.waitForLine("written", timeout: .seconds(60)))
        writer.kill(SIGKILL)
        XCTAssertEqual(try writer.wait(timeout: .seconds(10)).status, 128 + SIGKILL)

        let reopened = try Vault.open(at: folder.file("test.vault"), unlock: .keyFile(folder.file("k.key")), configuration: .test())
        XCTAssertEqual(try reopened.secret(for: .genericPassword(service: service, account: "survivor")), Data("durable".utf8))
    }
}

/// Errors collected from several threads.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ entry: String) { lock.withLock { list.append(entry) } }
    var entries: [String] { lock.withLock { list } }
}
