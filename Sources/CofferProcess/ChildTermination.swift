/// How a child ended, from its wait status (`waitpid`).
package enum ChildTermination: Sendable, Equatable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// This signal ended it.
    case signalled(Int32)
    /// Its status could not be collected: it was reaped elsewhere, or this process ignores SIGCHLD.
    case unknown

    /// Decodes a wait status (what `WIFEXITED`, `WEXITSTATUS` and `WTERMSIG` do; they are
    /// macros Swift does not import).
    package init(waitStatus: Int32) {
        let signal = waitStatus & 0x7F
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xFF) : .signalled(signal)
    }

    /// As a shell reports it: the exit status, or 128 plus the signal's number (-1 when unknown).
    package var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        case .unknown: -1
        }
    }

    package var description: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .signalled(let signal): "signal \(signal)"
        case .unknown: "an unknown status"
        }
    }
}
