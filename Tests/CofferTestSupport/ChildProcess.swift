import Foundation

/// A child process with captured output, for end-to-end tests. Every wait is bounded.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the buffers and counters are only touched under `condition`.

    /// How a finished process ended.
    public struct Outcome: Sendable {
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

    private let process = Process()
    private let condition = NSCondition()
    private let started = ContinuousClock.now
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()
    private var openStreams = 2
    private var exitedAt: ContinuousClock.Instant?

    /// Starts `executable`: a URL, or (in the `String` form) a path or a name looked up on `PATH`.
    /// `environment` entries are added to (or, with `nil` values, removed from) this process's
    /// environment. `stdin` is written and closed.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:], stdin: Data? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                self?.append(handle.availableData, toOutput: isOutput)
            }
        }
        process.terminationHandler = { [weak self] _ in self?.markExited() }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
    }

    public convenience init(
        _ command: String, _ arguments: [String], environment: [String: String?] = [:], stdin: Data? = nil
    ) throws {
        if command.contains("/") {
            try self.init(URL(fileURLWithPath: command), arguments, environment: environment, stdin: stdin)
        } else {
            try self.init(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, environment: environment, stdin: stdin)
        }
    }

    /// Runs to completion and returns the outcome; kills the process after `timeout`.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:], stdin: Data? = nil,
        timeout: Duration = .seconds(60)
    ) throws -> Outcome {
        try ChildProcess(executable, arguments, environment: environment, stdin: stdin).wait(timeout: timeout)
    }

    /// Runs a program by path or by name on `PATH`; see ``run(_:_:environment:stdin:timeout:)-(URL,_,_,_,_)``.
    public static func run(
        _ command: String, _ arguments: [String] = [], environment: [String: String?] = [:], stdin: Data? = nil,
        timeout: Duration = .seconds(60)
    ) throws -> Outcome {
        try ChildProcess(command, arguments, environment: environment, stdin: stdin).wait(timeout: timeout)
    }

    private func append(_ data: Data, toOutput: Bool) {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        if data.isEmpty {
            openStreams -= 1
        } else if toOutput {
            stdoutBuffer.append(data)
        } else {
            stderrBuffer.append(data)
        }
    }

    private func markExited() {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        exitedAt = .now
    }

    /// Waits until stdout contains `line` followed by a newline. Returns `false` on timeout or exit.
    public func waitForLine(_ line: String, timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !String(decoding: stdoutBuffer, as: UTF8.self).split(separator: "\n").contains(Substring(line)) {
            if openStreams == 0 || !condition.wait(until: deadline) { return false }
        }
        return true
    }

    /// Sends a signal.
    public func kill(_ signal: Int32 = SIGKILL) {
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Waits for exit (killing the process after `timeout`) and for its output to drain.
    public func wait(timeout: Duration = .seconds(60)) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        condition.lock()
        while exitedAt == nil && condition.wait(until: deadline) {}
        let timedOut = exitedAt == nil
        condition.unlock()
        if timedOut { kill() }
        process.waitUntilExit()
        condition.lock()
        defer { condition.unlock() }
        while openStreams > 0 && condition.wait(until: Date().addingTimeInterval(5)) {}
        return Outcome(
            status: process.terminationStatus, stdout: stdoutBuffer, stderr: stderrBuffer,
            duration: (exitedAt ?? .now) - started, timedOut: timedOut)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
