import CofferBase
import Glibc

/// One run of a helper program (`systemd-creds`) with a deadline: its standard input is given,
/// its standard output is read straight into guarded memory, its standard error is kept as
/// text, and a program still running at the deadline is killed (SIGKILL) and reaped.
///
/// Secrets go through pipes only, never through arguments or the environment.
struct BoundedProcess {
    /// How a run ended.
    enum Ending {
        /// The program exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
    }

    /// What a finished run left.
    struct Outcome {
        let ending: Ending
        /// Standard output, at most `outputLimit` bytes.
        let output: SecureBytes
        /// Whether the program wrote more than `outputLimit` bytes.
        let outputOverflowed: Bool
        /// Standard error, at most 16 KiB, as text.
        let errorText: String

        var succeeded: Bool {
            if case .exited(0) = ending { true } else { false }
        }
    }

    /// Why a run did not finish.
    enum Failure: Error {
        /// No executable of that name on `PATH`.
        case notFound
        /// The deadline passed; the program was killed.
        case timedOut
        /// A pipe or the spawn itself failed.
        case system(String)
    }

    static let errorTextLimit = 16 * 1024

    let executable: String
    let arguments: [String]
    let timeout: Duration
    let outputLimit: Int

    /// The executable's path: `executable` itself when it holds a slash, else the first match on
    /// `$PATH` (`/usr/local/bin:/usr/bin:/bin` when unset).
    static func locate(_ executable: String) -> String? {
        if executable.contains("/") { return access(executable, X_OK) == 0 ? executable : nil }
        let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in search.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(folder)/\(executable)"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs the program with `input` on its standard input.
    func run(input: SecureBytes) throws(Failure) -> Outcome {
        guard let path = Self.locate(executable) else { throw .notFound }
        let deadline = ContinuousClock.now + timeout
        // Socket pairs rather than pipes: made close-on-exec atomically (SOCK_CLOEXEC), so no
        // other child spawned meanwhile inherits them, and written with MSG_NOSIGNAL, so a
        // program that exits early gives EPIPE, not SIGPIPE.
        var streams: [[Int32]] = []
        for _ in 0..<3 {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                Self.closeAll(streams.flatMap { $0 })
                throw .system("socketpair: \(describeErrno())")
            }
            streams.append(pair)
        }
        let (inputPair, outputPair, errorPair) = (streams[0], streams[1], streams[2])
        let pid: pid_t
        do {
            pid = try spawn(path, stdin: inputPair[1], stdout: outputPair[1], stderr: errorPair[1])
        } catch {
            Self.closeAll(inputPair + outputPair + errorPair)
            throw error
        }
        Self.closeAll([inputPair[1], outputPair[1], errorPair[1]])
        let parentEnds = [inputPair[0], outputPair[0], errorPair[0]]
        defer { Self.closeAll(parentEnds) }
        for descriptor in parentEnds { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }

        var exchange = Exchange(input: inputPair[0], output: outputPair[0], error: errorPair[0], outputLimit: outputLimit)
        var outputLength = 0
        let captured = SecureBytes(count: outputLimit) { buffer in
            outputLength = exchange.run(sending: input, into: buffer, until: deadline)
        }
        // A program may close its streams and still not exit: the deadline holds for the exit too.
        guard !exchange.timedOut, let ending = Self.reap(pid, until: deadline) else {
            kill(pid, SIGKILL)
            _ = Self.reap(pid, until: nil)
            throw .timedOut
        }
        let output = captured.withUnsafeBytes { bytes in SecureBytes(copying: bytes.prefix(outputLength)) }
        return Outcome(
            ending: ending, output: output, outputOverflowed: exchange.outputOverflowed,
            errorText: String(decoding: exchange.errorBytes, as: UTF8.self))
    }

    private func spawn(_ path: String, stdin: Int32, stdout: Int32, stderr: Int32) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // The child starts with default signal handling and no blocked signal, whatever this
        // process set up for itself.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw .system("cannot run \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Waits for the program to exit: until `deadline` (`nil` when it passed first), or for as
    /// long as it takes when there is none (after SIGKILL).
    private static func reap(_ pid: pid_t, until deadline: ContinuousClock.Instant?) -> Ending? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if reaped == pid { break }
            if reaped < 0, errno != EINTR { return .signalled(0) }
            if let deadline, reaped == 0 {
                guard ContinuousClock.now < deadline else { return nil }
                usleep(5_000)
            }
        }
        // WIFEXITED and friends are macros Swift does not import.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    private static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
    }

    /// The parent's side of the three streams, driven by `poll` until the program closes its
    /// output and error streams or the deadline passes.
    private struct Exchange {
        var input: Int32
        let output: Int32
        let error: Int32
        let outputLimit: Int
        var errorBytes: [UInt8] = []
        var outputOverflowed = false
        var timedOut = false

        init(input: Int32, output: Int32, error: Int32, outputLimit: Int) {
            self.input = input
            self.output = output
            self.error = error
            self.outputLimit = outputLimit
        }

        /// Sends `secret`, reads standard output into `buffer`; returns how many bytes came.
        mutating func run(sending secret: SecureBytes, into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant) -> Int {
            var sent = 0
            var received = 0
            var outputOpen = true
            var errorOpen = true
            if secret.count == 0 { shutdown(input, Int32(SHUT_WR)) }
            while outputOpen || errorOpen {
                let remaining = deadline - .now
                guard remaining > .zero else {
                    timedOut = true
                    return received
                }
                var descriptors = [
                    pollfd(fd: sent < secret.count ? input : -1, events: Int16(POLLOUT), revents: 0),
                    pollfd(fd: outputOpen ? output : -1, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: errorOpen ? error : -1, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, 3, Int32(clamping: max(remaining.clampedMilliseconds, 1)))
                if ready < 0, errno != EINTR { timedOut = true; return received }
                guard ready > 0 else { continue }
                if descriptors[0].revents != 0 {
                    let written = secret.withUnsafeBytes { bytes in
                        send(input, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                    }
                    if written > 0 { sent += written } else if errno != EAGAIN, errno != EINTR { sent = secret.count }
                    if sent == secret.count { shutdown(input, Int32(SHUT_WR)) }
                }
                if descriptors[1].revents != 0 {
                    var scratch = [UInt8](repeating: 0, count: 1)
                    let count = received < outputLimit
                        ? read(output, buffer.baseAddress! + received, outputLimit - received)
                        : read(output, &scratch, 1)
                    if count > 0 {
                        if received < outputLimit { received += count } else { outputOverflowed = true }
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        outputOpen = false
                    }
                }
                if descriptors[2].revents != 0 {
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let count = read(error, &chunk, chunk.count)
                    if count > 0 {
                        errorBytes += chunk.prefix(min(count, max(BoundedProcess.errorTextLimit - errorBytes.count, 0)))
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        errorOpen = false
                    }
                }
            }
            return received
        }
    }
}
