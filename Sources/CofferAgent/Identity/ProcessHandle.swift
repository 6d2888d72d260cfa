import CLinux
import Glibc

/// A pidfd: a descriptor that names one process for as long as it is open, so that a process
/// that has ended cannot be mistaken for a later one given the same PID. Closed on deinit.
package final class ProcessHandle: Sendable {
    let descriptor: Int32

    /// Takes over `descriptor`, a pidfd.
    init(adopting descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// A pidfd for whatever process has `pid` now (`pidfd_open`); `nil` with errno set when
    /// there is none (ESRCH) or the kernel predates pidfds (ENOSYS, before Linux 5.3).
    static func open(pid: pid_t) -> ProcessHandle? {
        let descriptor = coffer_pidfd_open(pid)
        return descriptor >= 0 ? ProcessHandle(adopting: descriptor) : nil
    }

    /// Whether the process still runs (a zombie not yet reaped counts: its PID is not free).
    package var isAlive: Bool {
        coffer_pidfd_send_signal(descriptor, 0) == 0 || errno == EPERM
    }
}
