import CofferBase
import CofferProcess
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// Coffer's one way to run a child (``ChildCommand``), against real programs (`/bin/sh`): the
/// child gets exactly the descriptors named and the environment listed, never a `$PATH`
/// search, default signal handling; it leads a process group (or session) of its own, which a
/// deadline or a cancel ends whole; its output goes into the caller's buffer, bounded; how it
/// ended is typed.
final class ChildCommandTests: XCTestCase {
    private let folder = TemporaryFolder()
    /// On the command line of the processes a test's scripts start in the background.
    private let marker = "coffer-child-command-test-\(UUID().uuidString)"

    private let inheritable = InheritableState()

    override func tearDown() {
        for pid in ProcessTable.processes(withCommandLineContaining: marker) { kill(pid, SIGKILL) }
        inheritable.restore()
        super.tearDown()
    }

    private static func shell(_ script: String, environment: [String: String] = [:], group: ChildProcessGroup = .own) -> ChildCommand {
        ChildCommand(executable: "/bin/sh", arguments: ["-c", script], environment: environment, processGroup: group)
    }

    /// Runs `command` with `input`; its standard output as text, up to `limit` bytes.
    private static func run(
        _ command: ChildCommand, input: String? = nil, limit: Int = 65536, errorLimit: Int = ChildCommand.errorLimit,
        within time: Duration = .seconds(20), cancellation: ChildCancellation? = nil
    ) throws(ChildRunFailure) -> (outcome: ChildRunOutcome, output: String) {
        var buffer = [UInt8](repeating: 0, count: limit)
        var inputBytes = Array((input ?? "").utf8)
        let result = buffer.withUnsafeMutableBytes { output in
            inputBytes.withUnsafeMutableBytes { bytes in
                Result { () throws(ChildRunFailure) in
                    try command.run(
                        input: input == nil ? .nullDevice : .bytes(UnsafeRawBufferPointer(bytes)), output: output, errorLimit: errorLimit,
                        until: .now + time, cancellation: cancellation)
                }
            }
        }
        let outcome = try result.get()
        return (outcome, String(decoding: buffer.prefix(outcome.outputCount), as: UTF8.self))
    }

    /// A background job that lives on (a shell running `sleep 300`, its command line marked).
    private var lingeringJob: String { "sh -c 'sleep 300; : \(marker)' &" }

    private func assertNothingLeft(_ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let left = ProcessTable.waitUntilGone(commandLineContaining: marker, timeout: .seconds(2))
        XCTAssertEqual(left, [], "\(message): left running \(left.map(ProcessTable.commandLine(of:)))", file: file, line: line)
    }

    /// Prints the shell's open descriptors below 1024, one a line, opening none itself (a
    /// listing of /proc/$$/fd would show the descriptor it reads the folder with).
    private static let listDescriptors = "n=0; while [ $n -lt 1024 ]; do [ -e /proc/$$/fd/$n ] && echo $n; n=$((n+1)); done; :"

    /// Descriptors this process holds open (inheritable) never reach the child: it has 0, 1
    /// and 2 in a run; with ``ChildCommand/spawn(descriptors:)``, exactly those named, and a
    /// number left out below them is closed.
    func testTheChildGetsOnlyTheDescriptorsNamed() throws {
        inheritable.openInheritableDescriptor()
        XCTAssertEqual(try Self.run(Self.shell(Self.listDescriptors)).output, "0\n1\n2\n")

        let pipe = try DescriptorPair.pipe()
        let child = try Self.shell(Self.listDescriptors).spawn(descriptors: [1: .copy(pipe.write), 4: .nullDevice])
        close(pipe.write)
        let listed = FileHandle(fileDescriptor: pipe.read, closeOnDealloc: true).readDataToEndOfFile()
        XCTAssertEqual(child.wait(until: nil), .exited(0))
        XCTAssertEqual(String(decoding: listed, as: UTF8.self), "1\n4\n", "0 and 2 were not named: closed")
    }

    /// A descriptor number the child cannot have (at or beyond the open-file limit) stops the
    /// spawn with a typed error from the first action that could not be recorded, instead of a
    /// child started without it. (Every spawn action's result is checked now; this case was
    /// already stopped by the last action's check. The others guard against running out of
    /// memory, which no test here brings about.)
    func testADescriptorBeyondTheLimitStopsTheSpawn() throws {
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        let number = Int32(clamping: limit.rlim_cur)
        XCTAssertThrowsError(try Self.shell("exit 0").spawn(descriptors: [0: .nullDevice, number: .nullDevice])) { error in
            XCTAssertEqual(error as? ChildSpawnFailure, .system(call: "posix_spawn_file_actions_addopen", errno: EBADF))
        }
    }

    /// The child's environment is the one listed, nothing of this process's (not its
    /// `COFFER_PASSPHRASE`); ``ChildEnvironment/passing(_:prefixes:)`` takes only the names and
    /// prefixes given, never a `COFFER_` variable, and fixes `PATH`.
    func testTheEnvironmentIsTheOneListed() throws {
        inheritable.setVariable("COFFER_PASSPHRASE", "not for children")
        inheritable.setVariable("COFFER_CHILD_COMMAND_TEST", "not for children")
        inheritable.setVariable("CHILD_COMMAND_TEST_KEPT", "kept")
        inheritable.setVariable("CHILD_COMMAND_PREFIXED_ONE", "one")
        let listed = try Self.run(ChildCommand(executable: "/usr/bin/env", environment: ["ONLY": "this", "AND": "that"])).output
        XCTAssertEqual(listed, "AND=that\nONLY=this\n")

        let passed = ChildEnvironment.passing(["CHILD_COMMAND_TEST_KEPT", "COFFER_CHILD_COMMAND_TEST", "COFFER_PASSPHRASE"], prefixes: ["CHILD_COMMAND_PREFIXED_", "COFFER_"])
        XCTAssertEqual(passed, [
            "CHILD_COMMAND_TEST_KEPT": "kept", "CHILD_COMMAND_PREFIXED_ONE": "one", "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ])
    }

    /// A program is named by its absolute path: a bare name is refused, never looked up on
    /// `$PATH`, and a path with nothing there is `ENOENT`.
    func testTheProgramIsNeverLookedUpOnPath() {
        XCTAssertThrowsError(try ChildCommand(executable: "sh", environment: [:]).spawn(descriptors: [:])) { error in
            XCTAssertEqual(error as? ChildSpawnFailure, .notAbsolute("sh"))
        }
        let missing = folder.file("no-such-program").path
        XCTAssertThrowsError(try Self.run(ChildCommand(executable: missing, environment: [:]))) { error in
            XCTAssertEqual(error as? ChildRunFailure, .spawn(.cannotRun(missing, errno: ENOENT)))
        }
    }

    /// The child leads a process group of its own, or a session of its own when asked, or
    /// shares this process's group when asked (field 5 and 6 of /proc/PID/stat).
    func testTheChildLeadsItsOwnGroupOrSession() throws {
        let script = "read -r pid comm state ppid group session rest < /proc/$$/stat; echo $pid $group $session"
        func ids(_ group: ChildProcessGroup) throws -> [Int32] {
            try Self.run(Self.shell(script, group: group)).output.split(whereSeparator: \.isWhitespace).map { Int32($0)! }
        }
        let own = try ids(.own)
        XCTAssertEqual(own[1], own[0], "it leads its group")
        XCTAssertEqual(own[2], getsid(0), "in this process's session")
        let session = try ids(.newSession)
        XCTAssertEqual(session[2], session[0], "it leads its session")
        XCTAssertEqual(session[1], session[0])
        XCTAssertEqual(try ids(.caller)[1], getpgrp())
    }

    /// At the deadline the child and everything it started are killed, and the run is a
    /// timeout; the call returns at the deadline, not when the grandchild would have ended.
    func testTheDeadlineEndsTheWholeGroup() {
        let started = ContinuousClock.now
        XCTAssertThrowsError(try Self.run(Self.shell("\(lingeringJob) wait"), within: .milliseconds(500))) { error in
            XCTAssertEqual(error as? ChildRunFailure, .timedOut)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        assertNothingLeft("after the deadline")
    }

    /// A cancel from another thread ends the run at once, with everything the child started;
    /// a run given a cancelled cancellation never starts its program.
    func testCancelEndsTheWholeGroupAndLaterRunsNeverStart() throws {
        let cancellation = ChildCancellation()
        let startedFile = folder.file("started")
        let failure = Guarded<ChildRunFailure?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let command = Self.shell("\(lingeringJob) touch '\(startedFile.path)'; wait")
        DispatchQueue.global().async {
            do throws(ChildRunFailure) {
                _ = try Self.run(command, within: .seconds(60), cancellation: cancellation)
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: startedFile.path), ContinuousClock.now < deadline { usleep(5_000) }
        cancellation.cancel()
        XCTAssertEqual(ended.wait(timeout: .now() + 5), .success, "the run ended at once")
        XCTAssertEqual(failure.withLock { $0 }, .cancelled)
        XCTAssertTrue(cancellation.isCancelled)
        assertNothingLeft("after the cancel")

        let neverFile = folder.file("never")
        XCTAssertThrowsError(try Self.run(Self.shell("touch '\(neverFile.path)'"), cancellation: cancellation)) { error in
            XCTAssertEqual(error as? ChildRunFailure, .cancelled)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: neverFile.path), "the program did not run")
    }

    /// When the child exits, what it started is ended with it and its output is kept, even
    /// though the background job still held its standard output open.
    func testWhenTheChildExitsWhatItStartedEndsAndItsOutputIsKept() throws {
        let started = ContinuousClock.now
        let (outcome, output) = try Self.run(Self.shell("\(lingeringJob) printf answer"), within: .seconds(60))
        XCTAssertEqual(outcome.termination, .exited(0))
        XCTAssertEqual(output, "answer")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "not held until the deadline")
        assertNothingLeft("after the child exited")
    }

    /// The input goes to the child's standard input; standard output fills the caller's buffer
    /// and what does not fit is dropped and flagged; standard error is kept up to its limit; a
    /// child that does not read its input is no failure.
    func testStreamsAreBounded() throws {
        let echoed = try Self.run(Self.shell("cat"), input: "a secret from the caller")
        XCTAssertEqual(echoed.output, "a secret from the caller")
        XCTAssertFalse(echoed.outcome.outputOverflowed)

        let long = try Self.run(Self.shell("printf 0123456789; head -c 100000 /dev/zero >&2"), limit: 4, errorLimit: 100)
        XCTAssertEqual(long.output, "0123")
        XCTAssertTrue(long.outcome.outputOverflowed)
        XCTAssertEqual(long.outcome.errorText.utf8.count, 100)
        XCTAssertTrue(long.outcome.succeeded)

        let deaf = try Self.run(Self.shell("exit 0"), input: String(repeating: "x", count: 1_000_000))
        XCTAssertTrue(deaf.outcome.succeeded)
    }

    /// An exit status and a killing signal come back typed; the wait-status decoder reads
    /// what `waitpid` reports (a core dump's flag included).
    func testTerminationsAreTyped() throws {
        XCTAssertEqual(try Self.run(Self.shell("exit 3")).outcome.termination, .exited(3))
        XCTAssertEqual(try Self.run(Self.shell("kill -KILL $$")).outcome.termination, .signalled(SIGKILL))
        XCTAssertEqual(ChildTermination(waitStatus: 0), .exited(0))
        XCTAssertEqual(ChildTermination(waitStatus: 0x0300), .exited(3))
        XCTAssertEqual(ChildTermination(waitStatus: 0xFF00), .exited(255))
        XCTAssertEqual(ChildTermination(waitStatus: SIGTERM), .signalled(SIGTERM))
        XCTAssertEqual(ChildTermination(waitStatus: 0x80 | SIGSEGV), .signalled(SIGSEGV), "a core dump")
        XCTAssertEqual(ChildTermination.exited(3).shellStatus, 3)
        XCTAssertEqual(ChildTermination.signalled(SIGKILL).shellStatus, 137)
    }

    /// The child starts with every signal's default disposition and none blocked, whatever
    /// this thread blocks and this process ignores. (glibc's posix_spawn leaves its two
    /// internal real-time signals, 32 and 33, ignored: they are not the program's.)
    func testTheChildStartsWithDefaultSignalsAndNoneBlocked() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
        let previousHandler = signal(SIGUSR2, SIG_IGN)
        defer {
            signal(SIGUSR2, previousHandler)
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        let output = try Self.run(Self.shell("exec grep -E '^Sig(Blk|Ign)' /proc/self/status")).output
        let masks = Dictionary(uniqueKeysWithValues: output.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t")
            return (String(parts[0]), UInt64(parts[1], radix: 16) ?? .max)
        })
        XCTAssertEqual(masks["SigBlk:"], 0, "no signal blocked: \(output)")
        XCTAssertEqual(masks["SigIgn:"].map { $0 & ~(UInt64(0b11) << 31) }, 0, "no signal ignored: \(output)")
    }
}
