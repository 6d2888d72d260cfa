/// Why the agent cannot say which program is at the other end of a connection.
package enum CallerResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kernel gave no process for the peer (`SO_PEERCRED` failed, or the peer is in a PID
    /// namespace the agent cannot see).
    case noPeerProcess(String)
    /// The process has ended.
    case ended
    /// The process with the peer's PID started after the connection was accepted: the peer
    /// ended and its PID was given to another process.
    case pidReused
    /// The process's effective user is no longer the one that connected.
    case userChanged
    /// The agent may not look at the process's executable: the process is not dumpable (it
    /// called `prctl(PR_SET_DUMPABLE, 0)`, or runs a setuid or setgid program), and the agent
    /// has no `CAP_SYS_PTRACE`.
    case notInspectable
    /// Something of the process's could not be read, or does not make a ``Coffer/Program``.
    case unreadable(String)

    package var description: String {
        switch self {
        case .noPeerProcess(let reason): "the kernel names no process for the peer: \(reason)"
        case .ended: "the process has ended"
        case .pidReused: "the process that connected has ended and its PID belongs to a newer one"
        case .userChanged: "the process no longer runs as the user that connected"
        case .notInspectable: "the process is not dumpable, so its executable cannot be read"
        case .unreadable(let reason): "the process cannot be read: \(reason)"
        }
    }
}
