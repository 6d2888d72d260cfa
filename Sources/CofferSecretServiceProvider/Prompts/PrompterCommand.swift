import CofferBase
import Coffer
import Foundation
import Glibc

/// The command `--prompter` names: run by `/bin/sh -c`, it writes the passphrase on its
/// standard output, as `systemd-ask-password` does. Its first line is the passphrase; an exit
/// status other than 0, an empty line, or no answer within ``timeout`` means "dismissed". It is
/// told what to ask in `$COFFER_PROMPT`. It never gets a terminal: its standard input is
/// `/dev/null`.
package struct PrompterCommand: Sendable {
    package let command: String
    package let timeout: Duration

    package init(command: String, timeout: Duration = .seconds(120)) {
        self.command = command
        self.timeout = timeout
    }

    /// The longest answer read; a longer one is refused.
    static let maxAnswerBytes = 4096

    /// A run that ``Prompt`` can end early (`Dismiss`): it kills the command.
    final class Run: Sendable {
        private let child = Guarded<pid_t?>(nil)
        private let cancelled = Guarded(false)

        func cancel() {
            cancelled.withLock { $0 = true }
            child.withLock { pid in if let pid { kill(pid, SIGTERM) } }
        }

        var isCancelled: Bool { cancelled.withLock { $0 } }

        fileprivate func started(_ pid: pid_t) -> Bool {
            child.withLock { $0 = pid }
            return !isCancelled
        }

        fileprivate func ended() { child.withLock { $0 = nil } }
    }

    /// Runs the command and returns the passphrase, or `nil` when it was dismissed, failed or
    /// took too long. Blocks: call it off the main loop.
    func ask(_ prompt: String, run: Run) -> SecureBytes? {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "COFFER_PROMPT" }.map { "\($0.key)=\($0.value)" }
            + ["COFFER_PROMPT=\(prompt)"]
        let arguments = ["/bin/sh", "-c", command]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return nil }
        guard run.started(pid) else {
            kill(pid, SIGTERM)
            _ = Self.reap(pid)
            run.ended()
            return nil
        }
        var answer: [UInt8] = []
        let complete = readAnswer(into: &answer, from: pipeEnds[0], until: ContinuousClock.now + timeout)
        if !complete { kill(pid, SIGKILL) }
        let status = Self.reap(pid)
        run.ended()
        let passphrase = answer.withUnsafeBytes { bytes -> SecureBytes? in
            let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            guard complete, status == 0, !run.isCancelled, end > 0 else { return nil }
            return SecureBytes(copying: bytes[0..<end])
        }
        wipe(&answer)
        return passphrase
    }

    /// Reads standard output until end of file into `bytes`; `false` past the deadline or the limit.
    private func readAnswer(into bytes: inout [UInt8], from descriptor: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        bytes.reserveCapacity(Self.maxAnswerBytes + 512)
        var chunk = [UInt8](repeating: 0, count: 512)
        defer { wipe(&chunk) }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return true }
            bytes += chunk[0..<count]
            guard bytes.count <= Self.maxAnswerBytes else { return false }
        }
    }

    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED and WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }
}

private func wipe(_ bytes: inout [UInt8]) {
    _ = bytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
}
