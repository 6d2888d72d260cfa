import Foundation
import Glibc
import Synchronization

/// A child process for end-to-end tests: real executables, real pipes, bounded in time.
///
/// Any file descriptor can be fed (stdin, or `--client-secret-fd 3`), stdout and stderr are
/// collected as they come, and a process that outlives its time limit is killed.
public final class ChildProcess: Sendable {
    /// What a finished process left behind.
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public let pid: pid_t
    private let stdout: Collector
    private let stderr: Collector

    private init(pid: pid_t, stdout: Collector, stderr: Collector) {
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Starts `executable`. `inputs` maps child file descriptors (0 for stdin) to the bytes
    /// they read; a descriptor given `nil` stays open and empty until the process ends.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, inputs: [Int32: Data?] = [0: Data()]
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var parentEnds: [(fd: Int32, data: Data?)] = []
        var childEnds: [Int32] = []
        for (target, data) in inputs.sorted(by: { $0.key < $1.key }) {
            let (read, write) = try pipe()
            posix_spawn_file_actions_adddup2(&actions, read, target)
            parentEnds.append((write, data))
            childEnds.append(read)
        }
        let (outRead, outWrite) = try pipe()
        let (errRead, errWrite) = try pipe()
        posix_spawn_file_actions_adddup2(&actions, outWrite, 1)
        posix_spawn_file_actions_adddup2(&actions, errWrite, 2)
        childEnds += [outWrite, errWrite]

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }

        var pid: pid_t = 0
        let result = executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, nil, argv, env)
            : posix_spawnp(&pid, executable, &actions, nil, argv, env)
        childEnds.forEach { close($0) }
        guard result == 0 else {
            parentEnds.forEach { close($0.fd) }
            [outRead, errRead].forEach { close($0) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        let process = ChildProcess(pid: pid, stdout: Collector(fd: outRead), stderr: Collector(fd: errRead))
        for (fd, data) in parentEnds {
            guard let data else { continue }
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(fd)
        }
        process.heldOpen = parentEnds.filter { $0.data == nil }.map(\.fd)
        return process
    }

    private let held = Mutex<[Int32]>([])
    private var heldOpen: [Int32] {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }

    /// Runs `executable` to the end, killing it after `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        inputs: [Int32: Data?] = [0: Data()], timeout: Duration = .seconds(30)
    ) throws -> Output {
        try start(executable, arguments, environment: environment, inputs: inputs).wait(timeout: timeout)
    }

    /// The output, once the process has ended and been reaped.
    private let finished = Mutex<Output?>(nil)

    /// Waits for the process to end, killing it after `timeout`. Waiting again returns the same output.
    public func wait(timeout: Duration) throws -> Output {
        if let output = finished.withLock({ $0 }) { return output }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                finished.withLock { $0 = Output(status: 137, stdout: stdout.text, stderr: stderr.text) }
                throw ChildProcessError.timedOut(stderr: stderr.text)
            }
            usleep(5_000)
        }
        heldOpen.forEach { close($0) }
        heldOpen = []
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = Output(status: exit, stdout: stdout.finish(), stderr: stderr.finish())
        finished.withLock { $0 = output }
        return output
    }

    /// The first line the process writes on stdout, waiting up to `timeout`.
    public func firstLine(timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.firstLine { return line }
            usleep(5_000)
        }
        throw ChildProcessError.timedOut(stderr: stderr.text)
    }

    /// Ends the process: closes its held-open inputs, sends SIGTERM, and SIGKILL after `grace`.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) -> Output? {
        if let output = finished.withLock({ $0 }) { return output }
        heldOpen.forEach { close($0) }
        heldOpen = []
        kill(pid, SIGTERM)
        return try? wait(timeout: grace)
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
}

/// Why a child process failed.
public enum ChildProcessError: Error, CustomStringConvertible {
    case timedOut(stderr: String)

    public var description: String {
        switch self {
        case .timedOut(let stderr): "the child process did not finish in time; its stderr: \(stderr)"
        }
    }
}

/// Reads a file descriptor on a thread of its own until end of file.
private final class Collector: Sendable {
    private let buffer = Mutex(Data())
    private let done = DispatchSemaphore(value: 0)

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
            self.done.signal()
        }
    }

    var text: String { buffer.withLock { String(decoding: $0, as: UTF8.self) } }

    var firstLine: String? {
        let text = self.text
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        return String(text[..<newline])
    }

    /// Waits (briefly) for the end of file, then returns everything read.
    func finish() -> String {
        _ = done.wait(timeout: .now() + 5)
        return text
    }
}
