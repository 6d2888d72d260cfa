import CofferBase
import CofferProcess
import Glibc

/// The environment variables that carry secrets (a passphrase), which the agent must not keep:
/// it unlocks vaults with what `unlock` sends, and it outlives the shell that started it.
package enum SecretVariables {
    package static let names = ["COFFER_PASSPHRASE", "COFFER_NEW_PASSPHRASE"]

    /// This process's environment without them, for a process it starts.
    package static func environmentWithout() -> [String: String] {
        ProcessEnvironment.variables().filter { !names.contains($0.key) }
    }

    /// Removes them from this process's environment, and zeroes their text where it lies, so that
    /// `/proc/<pid>/environ` (the environment as the process started with it) no longer shows it.
    package static func scrub() {
        let secret = ProcessEnvironment.entries().filter(isSecret)
        for name in names { unsetenv(name) }
        for text in secret { SecretMemory.zero(text, count: strlen(text)) }
    }

    private static func isSecret(_ text: UnsafeMutablePointer<CChar>) -> Bool {
        names.contains { strncmp(text, $0 + "=", $0.utf8.count + 1) == 0 }
    }
}
