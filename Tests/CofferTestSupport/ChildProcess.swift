import Foundation

/// A child process with captured output, for end-to-end tests. Every wait is bounded.
public final class ChildProcess: @unchecked Sendable {
    /// How a finished process ended.
    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    private let process = Process()
    private let condition = NSCondition()
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()
    private var openStreams = 2

    /// Starts `executable`. `environment` entries are added to (or, with `nil` values, removed
    /// from) this process's environment. `stdin` is written and closed.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:], stdin: Data? = nil,
        currentDirectory: URL? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                self?.append(handle.availableData, toOutput: isOutput)
            }
        }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
    }

    /// Runs to completion and returns the outcome; kills the process after `timeout` seconds.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:], stdin: Data? = nil,
        timeout: TimeInterval = 60
    ) throws -> Outcome {
        try ChildProcess(executable, arguments, environment: environment, stdin: stdin).wait(timeout: timeout)
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

    /// Waits until stdout contains `line` followed by a newline. Returns `false` on timeout.
    public func waitForLine(_ line: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
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

    /// Waits for exit (killing the process after `timeout` seconds) and for its output to drain.
    public func wait(timeout: TimeInterval = 60) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            kill()
        }
        process.waitUntilExit()
        condition.lock()
        while openStreams > 0 && condition.wait(until: Date().addingTimeInterval(5)) {}
        let outcome = Outcome(status: process.terminationStatus, stdout: stdoutBuffer, stderr: stderrBuffer)
        condition.unlock()
        return outcome
    }
}
