import Coffer
import CofferAgent
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// Real processes on a real socket, told apart by what they run: their executable's real path
/// and SHA-256 (computed again here by `sha256sum`), an interpreter's script, and the pin rule.
/// The tests run as root, as the suite does; where a user other than root matters, the peer
/// runs as uid 65534 (`setpriv`).
final class CallerResolverTests: XCTestCase {
    let folder = TemporaryFolder()
    var helper: String { BuiltProducts.executable("coffer-test-helper").path }
    var socket: PeerSocket!

    override func setUpWithError() throws {
        socket = try PeerSocket(path: folder.file("peer.sock").path)
    }

    /// Starts `executable` with `arguments`, its stdin held open, and waits for `line`.
    func start(_ executable: String, _ arguments: [String], awaiting line: String = "connected") throws -> ChildProcess {
        let child = try ChildProcess.start(executable, arguments, inputs: [0: nil])
        guard child.waitForLine(line, timeout: .milliseconds(TestTiming.limit(milliseconds: 20_000))) else {
            child.stop()
            throw ChildProcessError.timedOut(stderr: "")
        }
        return child
    }

    /// The caller at the other end of the next connection, and its process.
    func caller(of executable: String, _ arguments: [String], resolver: CallerResolver = CallerResolver()) throws -> (Caller, ChildProcess) {
        let child = try start(executable, arguments)
        let connection = try socket.accept()
        defer { close(connection) }
        let caller = try resolver.resolve(socket: connection)
        XCTAssertEqual(caller.pid, child.pid)
        return (caller, child)
    }

    /// A copy of the helper at `name` in a folder of its own, mode 0755.
    func copyOfHelper(_ name: String) throws -> String {
        let path = folder.file(name).path
        try FileManager.default.copyItem(atPath: helper, toPath: path)
        chmod(path, 0o755)
        return path
    }

    /// A peer is its executable: the real path the kernel names, and the file's SHA-256; it
    /// runs no script. Both ways of pinning it (the kernel's `SO_PEERPIDFD`, and `SO_PEERCRED`
    /// then `pidfd_open` as on kernels before 6.5) give the same caller, alive until it ends.
    func testAPeerIsItsExecutablePathAndDigest() throws {
        for kernelPidfd in [true, false] {
            let (caller, child) = try caller(of: helper, ["peer", socket.path], resolver: CallerResolver(kernelPidfd: kernelPidfd))
            XCTAssertEqual(caller.program.executablePath, helper.realPathBytes)
            XCTAssertEqual(caller.program.executableDigest, try sha256sum(helper))
            XCTAssertTrue(caller.program.executablePinned, "root owns it, and the peer runs as root")
            XCTAssertNil(caller.program.script)
            XCTAssertEqual(caller.uid, 0)
            XCTAssertTrue(caller.isAlive)
            XCTAssertNotNil(caller.processDescriptor)
            child.stop()
            XCTAssertFalse(caller.isAlive, "the pidfd tells the process has ended")
        }
    }

    /// The same file at another path is another program; the same file at the same path is
    /// the same program, whatever it is run with.
    func testACopyAtAnotherPathIsAnotherProgram() throws {
        let copy = try copyOfHelper("copy-of-helper")
        let (original, first) = try caller(of: helper, ["peer", socket.path])
        let (copied, second) = try caller(of: copy, ["peer", socket.path])
        defer { first.stop(); second.stop() }
        XCTAssertEqual(copied.program.executablePath, copy.realPathBytes)
        XCTAssertEqual(copied.program.executableDigest, original.program.executableDigest, "the same bytes")
        XCTAssertFalse(original.program.matches(copied.program))
        XCTAssertFalse(copied.program.matches(original.program))
        let (again, third) = try caller(of: copy, ["peer", socket.path])
        defer { third.stop() }
        XCTAssertTrue(copied.program.matches(again.program))
    }

    /// A copy changed by one byte has another digest: a program pinned to the first content
    /// no longer matches, while an unpinned entry for the path still would.
    func testAModifiedExecutableHasAnotherDigestAndFailsItsPin() throws {
        let copy = try copyOfHelper("writable-helper")
        let (before, first) = try caller(of: copy, ["peer", socket.path])
        first.stop()
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: copy))
        handle.seekToEndOfFile()
        handle.write(Data([0x0A]))
        try handle.close()
        let (after, second) = try caller(of: copy, ["peer", socket.path])
        defer { second.stop() }
        XCTAssertEqual(after.program.executableDigest, try sha256sum(copy))
        XCTAssertNotEqual(after.program.executableDigest, before.program.executableDigest)
        XCTAssertTrue(before.program.executablePinned)
        XCTAssertFalse(before.program.matches(after.program), "pinned to the old content")
        let pathOnly = try Program(executablePath: before.program.executablePath, executableDigest: before.program.executableDigest)
        XCTAssertTrue(pathOnly.matches(after.program), "an unpinned entry is matched by path alone")
    }

    /// A folder uid 65534 can enter (unlike the test's own, 0700), removed by the caller.
    func folderOthersCanEnter() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw MissingPrerequisite.error("setpriv (util-linux) is needed to run a process as uid 65534")
        }
        var template = Array("/tmp/coffer-identity-XXXXXX".utf8CString)
        let shared = String(cString: try XCTUnwrap(mkdtemp(&template)))
        chmod(shared, 0o755)
        return shared
    }

    /// `arguments` run as uid 65534.
    func asNobody(_ arguments: [String]) -> [String] {
        ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
    }

    /// An agent of an ordinary user (the resolver in the helper, run as uid 65534) identifies a
    /// process of that user, but not one that made itself not dumpable, as Coffer's own tools
    /// do: the kernel lets it read neither the executable nor the folder (`notInspectable`).
    func testAProcessThatIsNotDumpableIsNotIdentifiedByAnUnprivilegedAgent() throws {
        let shared = try folderOthersCanEnter()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let resolver = shared + "/helper"
        try FileManager.default.copyItem(atPath: helper, toPath: resolver)
        chmod(resolver, 0o755)
        let wait = "import sys; print('connected', flush=True); sys.stdin.read()"
        let dumpable = try start("/usr/bin/setpriv", asNobody(["/usr/bin/python3", "-c", wait]))
        let hardened = try start("/usr/bin/setpriv", asNobody(["/usr/bin/python3", "-c", "import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); " + wait]))
        defer { [dumpable, hardened].forEach { $0.stop() } }
        let seen = try ChildProcess.run("/usr/bin/setpriv", asNobody([resolver, "resolve", "\(dumpable.pid)"]))
        XCTAssertEqual(seen.stdoutText, "program: \(String(decoding: "/usr/bin/python3".realPathBytes, as: UTF8.self))\n", seen.stderrText)
        let hidden = try ChildProcess.run("/usr/bin/setpriv", asNobody([resolver, "resolve", "\(hardened.pid)"]))
        XCTAssertEqual(hidden.stdoutText, "unidentified: \(CallerResolutionError.notInspectable)\n", hidden.stderrText)
    }

    /// For a user other than root (65534 here): a root-owned program in root's folders is
    /// not pinned (so an update keeps its access); the same program owned by the user, or in a
    /// folder the user owns, is.
    func testPinsFollowWhoCanModifyTheExecutable() throws {
        let shared = try folderOthersCanEnter()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let socket = try PeerSocket(path: shared + "/peer.sock", openToAll: true)
        let rootOwned = shared + "/root-owned", userOwned = shared + "/user-owned"
        let userFolder = shared + "/user-folder"
        try FileManager.default.createDirectory(atPath: userFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        chown(userFolder, 65534, 65534)
        for path in [rootOwned, userOwned, userFolder + "/helper"] {
            try FileManager.default.copyItem(atPath: helper, toPath: path)
            chmod(path, 0o755)
        }
        chown(userOwned, 65534, 65534)
        var pins: [String: Bool] = [:]
        for path in [rootOwned, userOwned, userFolder + "/helper"] {
            let child = try start("/usr/bin/setpriv", asNobody([path, "peer", socket.path]))
            defer { child.stop() }
            let connection = try socket.accept()
            defer { close(connection) }
            let caller = try CallerResolver().resolve(socket: connection)
            XCTAssertEqual(caller.uid, 65534)
            XCTAssertEqual(caller.program.executablePath, path.realPathBytes)
            XCTAssertNotNil(caller.program.executableDigest)
            pins[path] = caller.program.executablePinned
        }
        XCTAssertEqual(pins, [rootOwned: false, userOwned: true, userFolder + "/helper": true])
    }

    /// Two Python scripts are two programs (the interpreter and each script's real path and
    /// digest); `python3 -c` is the interpreter alone, whatever its code.
    func testPythonScriptsAreProgramsAndPythonDashCIsTheInterpreterAlone() throws {
        let code = "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected', flush=True)\nsys.stdin.read()\n"
        let first = folder.file("first.py").path, second = folder.file("second.py").path
        try Data(code.utf8).write(to: URL(fileURLWithPath: first))
        try Data(("# another script\n" + code).utf8).write(to: URL(fileURLWithPath: second))
        let (a, one) = try caller(of: "/usr/bin/python3", [first, socket.path])
        let (b, two) = try caller(of: "/usr/bin/python3", ["-u", second, socket.path])
        let (inline, three) = try caller(of: "/usr/bin/python3", ["-c", code, socket.path])
        defer { [one, two, three].forEach { $0.stop() } }
        let python = "/usr/bin/python3".realPathBytes
        for caller in [a, b, inline] {
            XCTAssertEqual(caller.program.executablePath, python)
            XCTAssertEqual(caller.program.executableDigest, try sha256sum("/usr/bin/python3"))
        }
        try assertScripts(a, first, b, second, inline: inline)
    }

    /// `a` and `b` run the scripts `first` and `second` (their real paths and digests),
    /// `inline` none, and none of the three is another.
    func assertScripts(_ a: Caller, _ first: String, _ b: Caller, _ second: String, inline: Caller, line: UInt = #line) throws {
        XCTAssertEqual(a.program.script, first.realPathBytes, line: line)
        XCTAssertEqual(a.program.scriptDigest, try sha256sum(first), line: line)
        XCTAssertEqual(b.program.script, second.realPathBytes, line: line)
        XCTAssertEqual(b.program.scriptDigest, try sha256sum(second), line: line)
        XCTAssertNil(inline.program.script, "the interpreter alone", line: line)
        for (x, y) in [(a, b), (b, a), (a, inline), (inline, a)] { XCTAssertFalse(x.program.matches(y.program), line: line) }
    }

    /// A shell running a script is the shell and the script; `sh -c` is the shell alone. The
    /// shells cannot connect to a Unix socket, so they are resolved by PID, as D-Bus callers are.
    func testShellScriptsAreProgramsAndShDashCIsTheShellAlone() throws {
        let first = folder.file("first.sh").path, second = folder.file("second.sh").path
        try Data("echo connected\nread line\n".utf8).write(to: URL(fileURLWithPath: first))
        try Data("echo connected\nread other\n".utf8).write(to: URL(fileURLWithPath: second))
        let resolver = CallerResolver()
        let one = try start("/bin/sh", [first]), two = try start("/bin/sh", ["-e", second])
        let three = try start("/bin/sh", ["-c", "echo connected; read line", "sh", first])
        let four = try start("/bin/bash", ["-c", "echo connected; read line; true"])
        defer { [one, two, three, four].forEach { $0.stop() } }
        let a = try resolver.resolve(pid: one.pid, uid: 0), b = try resolver.resolve(pid: two.pid, uid: 0)
        let inline = try resolver.resolve(pid: three.pid, uid: 0), bash = try resolver.resolve(pid: four.pid, uid: 0)
        for caller in [a, b, inline] { XCTAssertEqual(caller.program.executablePath, "/bin/sh".realPathBytes) }
        try assertScripts(a, first, b, second, inline: inline)
        XCTAssertEqual(bash.program.executablePath, "/bin/bash".realPathBytes)
        XCTAssertNil(bash.program.script, "bash -c")
    }

    /// A script named relative to the interpreter's folder is found from that folder; a script
    /// that can no longer be opened (deleted since) is kept by its absolute name, marked
    /// `(unreadable)`, with no digest.
    func testRelativeAndDeletedScripts() throws {
        let script = folder.file("relative.sh").path, doomed = folder.file("doomed.sh").path
        try Data("echo connected\nread line\n".utf8).write(to: URL(fileURLWithPath: script))
        try Data("echo connected\nread line\n".utf8).write(to: URL(fileURLWithPath: doomed))
        let relative = try start("/bin/sh", ["-c", "cd \(folder.url.path) && exec /bin/sh relative.sh"])
        let deleted = try start("/bin/sh", [doomed])
        defer { [relative, deleted].forEach { $0.stop() } }
        try FileManager.default.removeItem(atPath: doomed)
        let resolver = CallerResolver()
        XCTAssertEqual(try resolver.resolve(pid: relative.pid, uid: 0).program.script, script.realPathBytes)
        let gone = try resolver.resolve(pid: deleted.pid, uid: 0).program
        XCTAssertEqual(gone.script, Array(doomed.utf8) + Array(" (unreadable)".utf8))
        XCTAssertNil(gone.scriptDigest)
    }

    /// A script name that is no regular file (a FIFO the shell waits on) is never opened by the
    /// agent, which could block on a FIFO and act on some devices (it is resolved with `O_PATH`,
    /// which inotify does not report as an open): it is kept marked `(unreadable)`.
    func testAScriptThatIsNoRegularFileIsNotOpened() throws {
        let fifo = folder.file("fifo.sh").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let watch = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        XCTAssertGreaterThanOrEqual(watch, 0)
        defer { close(watch) }
        XCTAssertGreaterThanOrEqual(inotify_add_watch(watch, fifo, UInt32(IN_OPEN)), 0)
        // The shell blocks in its own open until a writer comes, so no open of its is reported.
        let waiting = try ChildProcess.start("/bin/sh", [fifo], inputs: [0: nil])
        defer {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            waiting.stop()
        }
        // Its command line is set a moment after the exec returns to the parent.
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(waiting.pid)/cmdline")))?.isEmpty != false, ContinuousClock.now < deadline {
            usleep(1_000)
        }
        let program = try CallerResolver().resolve(pid: waiting.pid, uid: 0).program
        XCTAssertEqual(program.script, Array(fifo.utf8) + Array(" (unreadable)".utf8))
        XCTAssertNil(program.scriptDigest)
        var events = [UInt8](repeating: 0, count: 4096)
        XCTAssertEqual(read(watch, &events, events.count), -1, "no open of the FIFO was reported")
        XCTAssertEqual(errno, EAGAIN)
    }

    /// Perl and Node.js scripts are told apart as Python's are; `-e` is the interpreter alone.
    func testPerlAndNodeScripts() throws {
        for (interpreter, source, inline) in [
            ("/usr/bin/perl", "print \"connected\\n\"; $| = 1; <STDIN>;\n", ["-e", "$| = 1; print \"connected\\n\"; <STDIN>;"]),
            ("/usr/bin/node", "console.log('connected'); process.stdin.resume();\n", ["-e", "console.log('connected'); process.stdin.resume();"]),
        ] {
            guard FileManager.default.isExecutableFile(atPath: interpreter) else {
                throw MissingPrerequisite.error("\(interpreter) is needed (scripts/bootstrap.sh test)")
            }
            let script = folder.file("script-\(URL(fileURLWithPath: interpreter).lastPathComponent)").path
            try Data(source.utf8).write(to: URL(fileURLWithPath: script))
            let withScript = try start(interpreter, [script]), alone = try start(interpreter, inline)
            defer { [withScript, alone].forEach { $0.stop() } }
            let resolver = CallerResolver()
            XCTAssertEqual(try resolver.resolve(pid: withScript.pid, uid: 0).program.script, script.realPathBytes, interpreter)
            XCTAssertNil(try resolver.resolve(pid: alone.pid, uid: 0).program.script, interpreter)
        }
    }

    /// A process is worked out once: asked again, the resolver reads no file again. A process
    /// that then runs another program (`exec`, same PID and start time) is worked out afresh.
    func testAProcessIsWorkedOutOnceUntilItExecsAnotherProgram() throws {
        let fifo = folder.file("go").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let child = try start("/bin/sh", ["-c", "echo connected; read line < \(fifo); exec \(helper) peer \(socket.path)"])
        defer { child.stop() }
        let resolver = CallerResolver()
        let first = try resolver.resolve(pid: child.pid, uid: 0)
        let hashed = resolver.digests.filesHashed
        let again = try resolver.resolve(pid: child.pid, uid: 0)
        XCTAssertEqual(again.program, first.program)
        XCTAssertEqual(resolver.digests.filesHashed, hashed, "nothing hashed again")
        XCTAssertEqual(resolver.rememberedProgram(pid: child.pid), first.program)

        let writer = open(fifo, O_WRONLY)
        XCTAssertEqual(write(writer, "go\n", 3), 3)
        close(writer)
        let connection = try socket.accept()
        defer { close(connection) }
        let execed = try resolver.resolve(socket: connection)
        XCTAssertEqual(execed.pid, child.pid)
        XCTAssertEqual(execed.startTime, first.startTime, "the same process")
        XCTAssertEqual(execed.program.executablePath, helper.realPathBytes, "now running the helper")
        XCTAssertNotEqual(execed.program, first.program)
    }

    /// A program bind-mounted over another's path in a mount namespace of its own (as a user
    /// namespace lets any user do) has that path in its namespace, and the kernel names it so;
    /// the agent finds another file there, so the path is marked `(unreachable)` and pinned,
    /// and it matches no entry for the real program at that path.
    func testAProgramMountedOverAnotherPathInItsOwnNamespaceIsUnreachable() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw MissingPrerequisite.error("unshare (util-linux) is needed to make a mount namespace")
        }
        let allowed = try copyOfHelper("allowed"), impostor = try copyOfHelper("impostor")
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: impostor))
        handle.seekToEndOfFile()
        handle.write(Data("impostor".utf8))
        try handle.close()
        let (real, first) = try caller(of: allowed, ["peer", socket.path])
        first.stop()
        let (other, second) = try caller(
            of: "/usr/bin/unshare", ["--mount", "--propagation", "private", "sh", "-c", "mount --bind \(impostor) \(allowed) && exec \(allowed) peer \(socket.path)"])
        defer { second.stop() }
        XCTAssertEqual(other.program.executablePath, allowed.realPathBytes + Array(" (unreachable)".utf8))
        XCTAssertEqual(other.program.executableDigest, try sha256sum(impostor))
        XCTAssertTrue(other.program.executablePinned)
        XCTAssertFalse(real.program.matches(other.program))
        let pathOnly = try Program(executablePath: real.program.executablePath)
        XCTAssertFalse(pathOnly.matches(other.program), "not even an unpinned entry for the real path")
    }
}
