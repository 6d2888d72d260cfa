import CofferTestSupport
import Glibc
import XCTest
@testable import CofferAgent
import Coffer

/// Parsers of `/proc/PID/stat`, `status` and `cmdline`.
final class ProcFilesTests: XCTestCase {
    /// The start time is field 22, counted from the last `)`: a command name with spaces and
    /// parentheses (any process can name itself so) does not shift the fields.
    func testTheStartTimeIsFieldTwentyTwoCountedFromTheLastParenthesis() {
        let tail = " S 1 2 3 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
        XCTAssertEqual(ProcFiles.startTime(stat: Array("42 (sleep)\(tail)".utf8)), 987654)
        XCTAssertEqual(ProcFiles.startTime(stat: Array("42 (a) S 1 2 (b) c)\(tail)".utf8)), 987654)
        XCTAssertEqual(ProcFiles.startTime(stat: Array("42 ( ) ) )\(tail)".utf8)), 987654)
        XCTAssertNil(ProcFiles.startTime(stat: Array("42 (x) S 1 2".utf8)), "too few fields")
        XCTAssertNil(ProcFiles.startTime(stat: Array("42 x S".utf8)), "no command name")
        XCTAssertNil(ProcFiles.startTime(stat: Array("42 (x) S 1 2 3 0 -1 4 1 0 0 0 5 6 0 0 20 0 1 0 99999999999999999999999 1".utf8)), "overflow")
    }

    /// This process's own start time reads, and is not after now.
    func testThisProcessStartTimeIsBeforeNow() throws {
        let stat = try XCTUnwrap(ProcFiles.read("/proc/self/stat", limit: 4096))
        let started = try XCTUnwrap(ProcFiles.startTime(stat: stat))
        XCTAssertLessThanOrEqual(started, BootClock.now())
    }

    /// A script a caller names that is a vault this process has open is not opened (closing it
    /// would drop the vault's SQLite locks): the caller's program is that script, unreadable, and
    /// the lock stays. Before, a process could name the agent's held vault as its script
    /// (found by review on 2026-11-29).
    func testAScriptThatIsAnOpenVaultIsNotOpened() throws {
        let folder = TemporaryFolder()
        let keyFile = folder.file("v.key")
        try KeyFile.generate(at: keyFile)
        let vault = try Vault.create(at: folder.file("v.vault"), with: .keyFile(keyFile))
        try vault.set(Data("s".utf8), for: .genericPassword(service: "s", account: "a"))
        let path = folder.file("v.vault").resolvingSymlinksInPath().path
        let script = try ProgramFile.script(Array(path.utf8), of: getpid(), uid: geteuid(), digests: FileDigests())
        XCTAssertEqual(String(decoding: script.path, as: UTF8.self), path + " (unreadable)")
        XCTAssertNil(script.digest)
        XCTAssertNil(ProcFiles.read(path, limit: 100, regularOnly: true))
        XCTAssertEqual(try SQLiteSharedLock.holder(of: path), "\(getpid())")
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "s", account: "a")), Data("s".utf8))
    }

    /// The effective uid is the second value of `Uid:`.
    func testTheEffectiveUIDIsTheSecondValue() {
        let status = "Name:\tx\nUmask:\t0022\nUid:\t1000\t0\t1000\t0\nGid:\t5\t5\t5\t5\n"
        XCTAssertEqual(ProcFiles.effectiveUID(status: Array(status.utf8)), 0)
        XCTAssertNil(ProcFiles.effectiveUID(status: Array("Name:\tx\n".utf8)))
        XCTAssertNil(ProcFiles.effectiveUID(status: Array("Uid:\t1000\n".utf8)))
    }

    /// `cmdline` is NUL-terminated arguments, empty ones kept.
    func testCommandLinesSplitAtNUL() {
        XCTAssertEqual(ProcFiles.arguments(cmdline: Array("python3\0-c\0\0x\0".utf8)), [Array("python3".utf8), Array("-c".utf8), [], Array("x".utf8)])
        XCTAssertEqual(ProcFiles.arguments(cmdline: []), [])
        XCTAssertEqual(ProcFiles.arguments(cmdline: Array("renamed by setproctitle".utf8)), [Array("renamed by setproctitle".utf8)])
    }

    /// A FIFO or a symbolic link is refused by a read that asks for a regular file, without
    /// blocking on the FIFO.
    func testARegularOnlyReadRefusesFIFOsAndLinks() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-procfiles-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path, link = folder.appendingPathComponent("link").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(symlink("/etc/hostname", link), 0)
        XCTAssertNil(ProcFiles.read(fifo, limit: 100, regularOnly: true))
        XCTAssertNil(ProcFiles.read(link, limit: 100, regularOnly: true))
        XCTAssertNotNil(ProcFiles.read(link, limit: 100))
    }
}
