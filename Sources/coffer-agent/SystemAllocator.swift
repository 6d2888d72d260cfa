import CofferSecretServiceProvider
import Foundation
import Glibc

/// The agent that serves the Secret Service runs with GLib allocating through `malloc`
/// (``SecretServiceProvider/needsSystemAllocator``), so that what a client's large message took
/// goes back to the system. GLib reads `G_SLICE` before `main`, so the agent starts itself
/// again, the same process (its pid, descriptors and arguments kept), with the variable set.
enum SystemAllocator {
    /// Replaces this process by itself with `G_SLICE=always-malloc` when it needs it; returns
    /// only when it does not, or when the restart failed (the agent then serves as it is).
    static func restartIfNeeded() {
        guard SecretServiceProvider.needsSystemAllocator else { return }
        setenv("G_SLICE", "always-malloc", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        unsetenv("G_SLICE")
    }
}
