import Foundation
import Glibc

/// Starting a process with a PID of the test's choosing, to show what happens when a PID is
/// reused: the last PID given is set to one less (`/proc/sys/kernel/ns_last_pid`, root in the
/// PID namespace only), then the process is started; again, while other processes of the
/// machine take the PID first.
public enum ForcedPID {
    /// Starts `executable`, which prints `line` once ready, as the process with `pid` (which must
    /// be free: its previous process reaped). Throws ``MissingPrerequisite`` where PIDs cannot be set.
    public static func start(_ executable: String, _ arguments: [String], pid: pid_t, awaiting line: String) throws -> ChildProcess {
        for _ in 0..<200 {
            guard let last = fopen("/proc/sys/kernel/ns_last_pid", "w") else {
                throw MissingPrerequisite.error("/proc/sys/kernel/ns_last_pid cannot be written (root in the PID namespace is needed)")
            }
            fputs("\(pid - 1)", last)
            guard fclose(last) == 0 else { throw MissingPrerequisite.error("/proc/sys/kernel/ns_last_pid refused the write") }
            let child = try ChildProcess.start(executable, arguments, inputs: [0: nil])
            if child.pid == pid {
                guard child.waitForLine(line, timeout: .seconds(10)) else { throw ChildProcessError.timedOut(stderr: "") }
                return child
            }
            child.stop()
        }
        throw MissingPrerequisite.error("other processes kept taking PID \(pid)")
    }
}
