import CLinux
import Glibc

/// What the CLI does before it reads any secret, so that neither a crash nor another process of
/// the same user can read the secrets in its memory (``CommandLineTool`` runs both steps).
package enum ProcessHardening {
    /// The signals the Swift runtime's crash reporter catches to print a backtrace, with the
    /// registers and the memory around them.
    private static let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS]

    /// No core file, and no backtrace printing memory.
    package static func preventCrashOutput() {
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        // A crash still ends the process with its signal (after the runtime's one-line fatal
        // error message), but no backtracer prints memory.
        for signal in crashSignals { Glibc.signal(signal, SIG_DFL) }
    }

    /// Not dumpable: ptrace and /proc/<pid>/mem are closed to other processes of the same
    /// user, and so is the executable's link (/proc/<pid>/exe), which the agent reads to tell
    /// which program a client is: ``CommandLineTool`` identifies the process to the agent first.
    package static func makeNotDumpable() {
        _ = coffer_set_not_dumpable()
    }
}
