import CofferTestSupport
import Foundation
import XCTest

/// The CLI is not dumpable, may not write a core file, and a crash prints no memory.
final class ProcessHardeningTests: CLITestCase {
    /// A coffer process waiting on `--passphrase-fd 3` (a pipe held open): its core-file limit
    /// is 0, and, run as another user, its /proc files belong to root, which is how Linux
    /// shows a process that is not dumpable (ptrace and /proc/<pid>/mem closed to that user).
    func testTheProcessIsNotDumpableAndWritesNoCore() async throws {
        try initVault()
        let waiting = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["--passphrase-fd", "3", "get", "s", "a"],
            environment: ["COFFER_VAULT": vault.path], inputs: [0: Data(), 3: nil])
        defer { waiting.stop() }
        let pid = waiting.pid
        await eventually("the core limit is 0") { Self.coreLimit(of: pid) == ["0", "0"] }

        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("the /proc ownership check runs a coffer as another user: it needs root and setpriv")
        }
        let other = try ChildProcess.start(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", try BuiltProducts.executableForOtherUsers("coffer").path, "--passphrase-fd", "3", "doctor"],
            environment: ["COFFER_VAULT": "/nonexistent/v.vault"], inputs: [0: Data(), 3: nil])
        defer { other.stop() }
        let otherPID = other.pid
        await eventually("the process started and limited its core files") { Self.coreLimit(of: otherPID) == ["0", "0"] }
        // It makes itself not dumpable once its command line is parsed (and, for a command that
        // uses the agent, once the agent has identified it), before it reads descriptor 3.
        await eventually("a non-dumpable process's /proc files belong to root") {
            var info = stat()
            return stat("/proc/\(otherPID)/environ", &info) == 0 && info.st_uid == 0
        }
    }

    /// A crash signal kills the process plainly: the runtime's backtracer, which printed the
    /// registers and the memory around them, is not run.
    func testACrashPrintsNoMemory() async throws {
        try initVault()
        let waiting = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["--passphrase-fd", "3", "get", "s", "a"],
            environment: ["COFFER_VAULT": vault.path], inputs: [0: Data(), 3: nil])
        let pid = waiting.pid
        await eventually("the process started and hardened itself") { Self.coreLimit(of: pid) == ["0", "0"] }
        waiting.kill(SIGSEGV)
        let outcome = try waiting.wait(timeout: .seconds(30))
        XCTAssertEqual(outcome.status, 128 + SIGSEGV)
        XCTAssertFalse(outcome.stderrText.contains("Registers") || outcome.stderrText.contains("Backtrace") || outcome.stderrText.contains("0x"),
                       outcome.stderrText)
    }

    /// The soft and hard core-file limits of `pid`, from /proc/<pid>/limits.
    private static func coreLimit(of pid: pid_t) -> [String] {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
              let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") })
        else { return [] }
        return line.split(separator: " ").dropFirst(4).prefix(2).map(String.init)
    }

}
