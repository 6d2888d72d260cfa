import Glibc

/// A started child, until it is reaped.
///
/// Signal its group before reaping it: while the child is unreaped its process id (which is
/// also its group's id) cannot be given to another process.
package struct SpawnedChild: Sendable, Equatable {
    package let pid: pid_t
    /// The id of the group it leads (``ChildProcessGroup/own``, ``ChildProcessGroup/newSession``);
    /// `nil` when it runs in this process's group.
    package let processGroup: pid_t?

    /// Sends `signal` to the child alone.
    package func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Sends `signal` to the child's whole group: the child and everything it started that
    /// stayed in its group. A child in this process's group gets it alone.
    package func signalGroup(_ signal: Int32) {
        kill(processGroup.map { -$0 } ?? pid, signal)
    }

    /// Whether the child has ended, without reaping it.
    package var hasEnded: Bool {
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return result != 0 || info._sifields._sigchld.si_pid == pid
    }

    /// Reaps the child: waits until it ends, or until `deadline` (`nil`: as long as it takes).
    /// Returns `nil` when the deadline came first.
    package func wait(until deadline: ContinuousClock.Instant?) -> ChildTermination? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if reaped == pid { return ChildTermination(waitStatus: status) }
            if reaped < 0, errno != EINTR { return .unknown }
            if let deadline, reaped == 0 {
                guard ContinuousClock.now < deadline else { return nil }
                usleep(2_000)
            }
        }
    }
}
