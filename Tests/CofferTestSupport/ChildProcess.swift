import CofferBase
import CofferProcess
import Foundation
import Glibc
import Synchronization

/// A child process for end-to-end tests: real executables, real pipes, bounded in time.
///
/// Any file descriptor can be fed (stdin, or `--passphrase-fd 3`), stdout and stderr are
/// collected as they come (binary-safe), and a process that outlives its time limit is killed.
public final class ChildProcess: Sendable {
    /// What a finished process left behind.
    public struct Output: Sendable {
        /// The exit status, or 128 + the signal number for a process killed by a signal.
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
        /// From start to exit.
        public let duration: Duration
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    public var pid: pid_t { child.pid }
    private let child: SpawnedChild
    private let stdout: Collector
    private let stderr: Collector
    private let started = ContinuousClock.now
    private let heldOpen = Guarded<[Int32]>([])
    private let finished = Guarded<Output?>(nil)

    private init(child: SpawnedChild, stdout: Collector, stderr: Collector) {
        self.child = child
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Starts `executable` (a path, or a name looked up on this process's `PATH`), through
    /// Coffer's own runner (``ChildCommand``): the child gets the descriptors below and no other.
    ///
    /// `environment` changes this process's environment for the child: a value sets a
    /// variable, `nil` removes it. `inputs` maps child file descriptors (0 for stdin) to the
    /// bytes they read; a descriptor given `nil` stays open and empty until the process ends;
    /// with no entry for 0, stdin is `/dev/null`.
    /// With `newProcessGroup`, the child leads a process group of its own, so that a test can
    /// signal it and everything it started at once, as a terminal's Ctrl-C does; a time limit
    /// then ends the whole group.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], inputs: [Int32: Data?] = [0: Data()],
        newProcessGroup: Bool = false
    ) throws -> ChildProcess {
        guard let path = locate(executable) else { throw POSIXError(.ENOENT) }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        var descriptors: [Int32: ChildDescriptor] = [0: .nullDevice]
        var parentEnds: [(fd: Int32, data: Data?)] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        do {
            for (target, data) in inputs.sorted(by: { $0.key < $1.key }) {
                let (read, write) = try DescriptorPair.pipe()
                descriptors[target] = .copy(read)
                parentEnds.append((write, data))
                childEnds.append(read)
            }
            let (outRead, outWrite) = try DescriptorPair.pipe()
            parentEnds.append((outRead, nil))
            childEnds.append(outWrite)
            let (errRead, errWrite) = try DescriptorPair.pipe()
            parentEnds.append((errRead, nil))
            childEnds.append(errWrite)
            descriptors[1] = .copy(outWrite)
            descriptors[2] = .copy(errWrite)
        } catch {
            parentEnds.forEach { close($0.fd) }
            throw POSIXError(.EMFILE)
        }
        let command = ChildCommand(executable: path, arguments: arguments, environment: variables, processGroup: newProcessGroup ? .own : .caller)
        let child: SpawnedChild
        do {
            child = try command.spawn(descriptors: descriptors)
        } catch {
            parentEnds.forEach { close($0.fd) }
            if case .cannotRun(_, let code) = error { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
            throw POSIXError(.EIO)
        }
        // Only the child reads its inputs now: one it stops reading early is EPIPE for the
        // writes below, not a write that waits for ever.
        childEnds.forEach { close($0) }
        childEnds = []
        let (errRead, _) = parentEnds.removeLast()
        let (outRead, _) = parentEnds.removeLast()
        let process = ChildProcess(child: child, stdout: Collector(fd: outRead), stderr: Collector(fd: errRead))
        withSIGPIPEBlocked {
            for (fd, data) in parentEnds {
                guard let data else { continue }
                data.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0, errno == EINTR { continue }
                        if written <= 0 { break }
                        offset += written
                    }
                }
                close(fd)
            }
        }
        process.heldOpen.withLock { $0 = parentEnds.filter { $0.data == nil }.map(\.fd) }
        return process
    }

    /// Runs `body` with SIGPIPE blocked on this thread, then takes any SIGPIPE its writes raised
    /// (a write to a child that stopped reading is then EPIPE, and the test goes on).
    private static func withSIGPIPEBlocked(_ body: () -> Void) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        body()
        var now = timespec(tv_sec: 0, tv_nsec: 0)
        while sigtimedwait(&pipeSignal, nil, &now) == SIGPIPE {}
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// `executable` itself when it holds a slash, else the first executable file of that name
    /// on this process's `PATH` (as `posix_spawnp` looks).
    private static func locate(_ executable: String) -> String? {
        guard !executable.contains("/") else { return executable }
        let search = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return search.split(separator: ":").map { "\($0)/\(executable)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` to the end with `stdin`; throws ``ChildProcessError/timedOut(stderr:)``
    /// (after killing it) when it outlives `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String?] = [:], stdin: Data = Data(),
        inputs: [Int32: Data?] = [:], timeout: Duration = .seconds(60)
    ) throws -> Output {
        try start(executable, arguments, environment: environment, inputs: inputs.merging([0: stdin]) { $1 })
            .wait(timeout: timeout)
    }

    /// ``run(_:_:environment:stdin:inputs:timeout:)-(String,_,_,_,_,_)`` for a URL.
    public static func run(
        _ executable: URL, _ arguments: [String] = [], environment: [String: String?] = [:], stdin: Data = Data(),
        inputs: [Int32: Data?] = [:], timeout: Duration = .seconds(60)
    ) throws -> Output {
        try run(executable.path, arguments, environment: environment, stdin: stdin, inputs: inputs, timeout: timeout)
    }

    /// Waits for the process to end, killing it after `timeout`. Waiting again returns the same output.
    public func wait(timeout: Duration) throws -> Output {
        if let output = finished.withLock({ $0 }) { return output }
        guard let termination = child.wait(until: ContinuousClock.now + timeout) else {
            child.signalGroup(SIGKILL)
            _ = child.wait(until: nil)
            finish(status: 128 + SIGKILL)
            throw ChildProcessError.timedOut(stderr: stderr.text)
        }
        return finish(status: termination.shellStatus)
    }

    /// Whether the process has ended (it is not reaped: ``wait(timeout:)`` still reports it).
    public var hasEnded: Bool { child.hasEnded }

    @discardableResult
    private func finish(status: Int32) -> Output {
        let duration = ContinuousClock.now - started
        heldOpen.withLock { fds in
            fds.forEach { close($0) }
            fds = []
        }
        let output = Output(status: status, stdout: stdout.finish(), stderr: stderr.finish(), duration: duration)
        finished.withLock { $0 = output }
        return output
    }

    /// The first line the process writes on stdout, waiting up to `timeout`.
    public func firstLine(timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.lines.first { return line }
            usleep(5_000)
        }
        throw ChildProcessError.timedOut(stderr: stderr.text)
    }

    /// The first `count` lines the process writes on stdout, waiting up to `timeout`. Throws
    /// ``ChildProcessError/timedOut(stderr:)`` when they do not come in time, or at once when
    /// stdout closes first (the process ended), with the process's stderr either way.
    public func lines(_ count: Int, timeout: Duration) throws -> [String] {
        try firstLines(count, of: stdout, timeout: timeout)
    }

    /// The first `count` lines the process writes on stderr, waiting up to `timeout`.
    public func errorLines(_ count: Int, timeout: Duration) throws -> [String] {
        try firstLines(count, of: stderr, timeout: timeout)
    }

    private func firstLines(_ count: Int, of stream: Collector, timeout: Duration) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Closed first, then read: lines that came just before the close still count.
            let closed = stream.isClosed
            let lines = stream.lines
            if lines.count >= count { return Array(lines.prefix(count)) }
            if closed { throw ChildProcessError.endedEarly(stderr: stderr.text) }
            usleep(5_000)
        }
        throw ChildProcessError.timedOut(stderr: stderr.text)
    }

    /// Waits until the process has written `line` as a whole line on stdout. Returns `false`
    /// when it has not within `timeout`.
    public func waitForLine(_ line: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stdout.lines.contains(line) { return true }
            usleep(5_000)
        }
        return false
    }

    /// Sends a signal.
    public func kill(_ signal: Int32 = SIGKILL) {
        child.signal(signal)
    }

    /// Sends a signal to the child's whole process group (see `newProcessGroup`).
    public func killGroup(_ signal: Int32) {
        child.signalGroup(signal)
    }

    /// A test that fails before stopping its child still leaves no process behind.
    deinit {
        guard finished.withLock({ $0 }) == nil else { return }
        heldOpen.withLock { fds in fds.forEach { close($0) } }
        child.signalGroup(SIGKILL)
        _ = child.wait(until: nil)
    }

    /// Ends the process: closes its held-open inputs, sends SIGTERM, and SIGKILL after `grace`.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) -> Output? {
        if let output = finished.withLock({ $0 }) { return output }
        heldOpen.withLock { fds in
            fds.forEach { close($0) }
            fds = []
        }
        kill(SIGTERM)
        return try? wait(timeout: grace)
    }
}

/// Why a child process failed.
public enum ChildProcessError: Error, CustomStringConvertible {
    case timedOut(stderr: String)
    /// Its stdout closed before it wrote what was awaited.
    case endedEarly(stderr: String)

    public var description: String {
        switch self {
        case .timedOut(let stderr): "the child process did not finish in time; its stderr: \(stderr)"
        case .endedEarly(let stderr): "the child process closed its stdout early; its stderr: \(stderr)"
        }
    }
}

/// Reads a file descriptor on a thread of its own until end of file. The buffer is `Guarded`
/// (a pthread mutex), which ThreadSanitizer sees; it does not see `Mutex`'s futex.
private final class Collector: Sendable {
    private let buffer = Guarded(Data())
    private let done = DispatchSemaphore(value: 0)
    private let closed = Atomic<Bool>(false)

    init(fd: Int32) {
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                self.buffer.withLock { $0.append(chunk, count: count) }
            }
            close(fd)
            self.closed.store(true, ordering: .releasing)
            self.done.signal()
        }
    }

    var text: String { buffer.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Whether the end of file was read.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// The complete lines read so far.
    var lines: [String] {
        let text = self.text
        guard let last = text.lastIndex(of: "\n") else { return [] }
        return text[..<last].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Waits (briefly) for the end of file, then returns everything read.
    func finish() -> Data {
        _ = done.wait(timeout: .now() + 5)
        return buffer.withLock { $0 }
    }
}
