import Foundation

/// SQLite's shared lock on a database file, as another process sees it (`coffer-test-helper
/// shared-lock-holder`): a connection in WAL mode keeps it while it is open, and a process never
/// sees its own locks.
public enum SQLiteSharedLock {
    /// The PID holding the lock on the file at `path`, or `none`.
    public static func holder(of path: String) throws -> String {
        let output = try ChildProcess.run(BuiltProducts.executable("coffer-test-helper").path, ["shared-lock-holder", path])
        guard output.status == 0 else { throw ChildProcessError.endedEarly(stderr: output.stdoutText + output.stderrText) }
        return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
