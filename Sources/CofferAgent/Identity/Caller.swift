import Coffer
import Glibc

/// A live peer of the agent, on its socket or on D-Bus, and the program it runs: who is asking.
/// Made by ``CallerResolver``; one for each connection (socket) or unique name (D-Bus).
///
/// It holds a pidfd on the process (closed when the caller goes), so ``isAlive`` speaks of this
/// process and never of a later one given the same PID.
package final class Caller: Sendable, CustomStringConvertible {
    /// The effective user id the process connected with.
    package let uid: uid_t
    package let pid: pid_t
    /// When the process started: clock ticks after boot (`/proc/PID/stat` field 22).
    package let startTime: UInt64
    /// The program the process runs.
    package let program: Program
    private let handle: ProcessHandle?

    init(uid: uid_t, pid: pid_t, startTime: UInt64, program: Program, handle: ProcessHandle?) {
        self.uid = uid
        self.pid = pid
        self.startTime = startTime
        self.program = program
        self.handle = handle
    }

    /// The pidfd, for `poll` (it becomes readable when the process ends); `nil` on kernels
    /// before 5.3.
    package var processDescriptor: Int32? { handle?.descriptor }

    /// Whether the process still runs: its pidfd says so, or (without one) a process with its
    /// PID has its start time.
    package var isAlive: Bool {
        if let handle { return handle.isAlive }
        return ProcFiles.read("/proc/\(pid)/stat", limit: 4096).flatMap(ProcFiles.startTime) == startTime
    }

    /// The program, then the process: no secret, and no byte that could forge a line.
    package var description: String { "\(program) (pid \(pid), uid \(uid))" }
}
