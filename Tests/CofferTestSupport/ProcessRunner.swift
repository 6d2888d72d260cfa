import Foundation

/// What a finished subprocess left behind.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: Data
    /// From launch to exit.
    public let duration: Duration
    /// Whether the process was killed for overrunning its time limit.
    public let timedOut: Bool

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs programs as subprocesses, bounded in time.
public enum ProcessRunner {
    /// Runs `executable` (a path, or a name looked up on `PATH`) with `arguments`, feeding it
    /// `stdin`, and waits at most `timeout` before killing it.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        stdin: Data = Data(), timeout: Duration = .seconds(60)
    ) throws -> ProcessResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()

        let collected = Collected()
        let readers = DispatchGroup()
        for (pipe, keyPath) in [(output, \Collected.stdout), (errors, \Collected.stderr)] {
            DispatchQueue.global().async(group: readers) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.store(data, at: keyPath)
            }
        }
        input.fileHandleForWriting.write(stdin)
        try? input.fileHandleForWriting.close()

        var timedOut = false
        if exited.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        let duration = clock.now - start
        readers.wait()
        return ProcessResult(
            status: process.terminationStatus, stdout: collected.value(\.stdout), stderr: collected.value(\.stderr),
            duration: duration, timedOut: timedOut)
    }

    /// The standard streams, filled in by reader threads.
    private final class Collected: @unchecked Sendable {
        // @unchecked: every access goes through `lock`.
        private let lock = NSLock()
        var stdout = Data()
        var stderr = Data()

        func store(_ data: Data, at keyPath: ReferenceWritableKeyPath<Collected, Data> & Sendable) {
            lock.withLock { self[keyPath: keyPath] = data }
        }

        func value(_ keyPath: KeyPath<Collected, Data> & Sendable) -> Data {
            lock.withLock { self[keyPath: keyPath] }
        }
    }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        .milliseconds(Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000))
    }
}
