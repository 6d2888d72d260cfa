import CLinux
import Glibc

/// The process at the other end of a connection, as the agent learns it when it accepts: its
/// PID and user, a pidfd pinning it, and the moment of the accept. ``CallerResolver`` then
/// tells which program it runs.
package struct PeerProcess: Sendable {
    package let pid: pid_t
    /// The effective user id the process had when it connected.
    package let uid: uid_t
    /// The pidfd: the kernel's own for the connecting process (`SO_PEERPIDFD`, Linux 6.5), or
    /// else one for whatever process had the PID when the agent asked (`pidfd_open`, Linux 5.3);
    /// `nil` on older kernels.
    let handle: ProcessHandle?
    /// `CLOCK_BOOTTIME` ticks when the connection was accepted (or the D-Bus call received):
    /// a process that started later is not the peer.
    let acceptedAt: UInt64

    init(pid: pid_t, uid: uid_t, handle: ProcessHandle?, acceptedAt: UInt64) {
        self.pid = pid
        self.uid = uid
        self.handle = handle
        self.acceptedAt = acceptedAt
    }

    /// The peer of the connected Unix socket `descriptor`: `SO_PEERCRED`, and the kernel's
    /// pidfd (`SO_PEERPIDFD`) unless `kernelPidfd` is `false` or the kernel lacks it; then
    /// `pidfd_open` of the PID.
    package static func of(socket descriptor: Int32, kernelPidfd: Bool = true) throws(CallerResolutionError) -> PeerProcess {
        let acceptedAt = BootClock.now()
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc's module does not export.
        var peer: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 else {
            throw .noPeerProcess("SO_PEERCRED: \(String(cString: strerror(errno)))")
        }
        guard peer.pid > 0 else { throw .noPeerProcess("the peer is in a PID namespace the agent cannot see") }
        var handle: ProcessHandle?
        if kernelPidfd {
            let pidfd = coffer_peer_pidfd(descriptor)
            if pidfd >= 0 {
                handle = ProcessHandle(adopting: pidfd)
            } else if case let code = errno, code != ENOPROTOOPT {
                // The kernel knows the option but has no live process to give (some kernels
                // give none for a peer already reaped: EINVAL); pidfd_open of the PID could
                // pin a later process.
                guard code == ESRCH || code == EINVAL || code == ENODATA else {
                    throw .noPeerProcess("SO_PEERPIDFD: \(String(cString: strerror(code)))")
                }
                throw .ended
            }
        }
        if handle == nil { handle = try open(pid: peer.pid) }
        return PeerProcess(pid: peer.pid, uid: peer.uid, handle: handle, acceptedAt: acceptedAt)
    }

    /// The process a D-Bus connection reported (`GetConnectionCredentials`'s `ProcessID` and
    /// `UnixUserID`), pinned now with `pidfd_open`. The bus recorded the PID when the client
    /// connected to it, which may be long before; dbus 1.14 gives no pidfd of its own.
    package static func of(pid: pid_t, uid: uid_t) throws(CallerResolutionError) -> PeerProcess {
        guard pid > 0 else { throw .noPeerProcess("the bus gave no process id") }
        let acceptedAt = BootClock.now()
        return PeerProcess(pid: pid, uid: uid, handle: try open(pid: pid), acceptedAt: acceptedAt)
    }

    private static func open(pid: pid_t) throws(CallerResolutionError) -> ProcessHandle? {
        if let handle = ProcessHandle.open(pid: pid) { return handle }
        guard errno == ENOSYS else { throw .ended }
        return nil
    }
}
