import CofferBase
import Foundation
import Glibc

/// Executables built beside the test bundle (`coffer`, `coffer-test-helper`).
public enum BuiltProducts {
    /// The build folder that holds the running test binary.
    public static let folder: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }()

    /// The built program `name`.
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    /// The built program `name` at a path another user can run: the build folder's own when
    /// every folder above it lets others pass, else a link (or copy) in a folder of /tmp that
    /// does, with the programs it runs from its own folder beside it (``companions``). Tests that
    /// run a program as another uid (setpriv) use this: a clone in a private folder
    /// (`mktemp -d`, 0700) would otherwise fail with "Permission denied" at exec.
    public static func executableForOtherUsers(_ name: String) throws -> URL {
        let built = executable(name)
        if isReachableByOthers(built.path) { return built }
        // scripts/run-tests.py links them into COFFER_SHARED_BIN before any test runs: a link
        // made while an agent hashes the file changes its change time under it. A program
        // already in the folder is not linked again.
        let shared = try ProcessInfo.processInfo.environment["COFFER_SHARED_BIN"].map { URL(fileURLWithPath: $0) } ?? sharedFolder.get()
        for program in [name] + (companions[name] ?? []) where FileManager.default.fileExists(atPath: executable(program).path) {
            let target = shared.appendingPathComponent(program)
            if isReachableByOthers(target.path) { continue }
            unlink(target.path)
            if link(executable(program).path, target.path) != 0 {
                try FileManager.default.copyItem(at: executable(program), to: target)
            }
            chmod(target.path, 0o755)
        }
        return shared.appendingPathComponent(name)
    }

    /// The programs each program runs from its own folder: `coffer agent start` runs
    /// `coffer-agent`, and `coffer` hands `login`, `token` and the like to `coffer-auth` and
    /// `dev-backend` to `coffer-dev-backend`; the thin `coffer` and credential helpers load
    /// `libCofferCommands.so` for what they do not answer themselves.
    public static let companions = [
        "coffer": ["coffer-agent", "coffer-auth", "coffer-dev-backend", "libCofferCommands.so"],
        "git-credential-coffer": ["libCofferCommands.so"], "docker-credential-coffer": ["libCofferCommands.so"],
    ]

    /// Whether a user with no rights but the world's may run the file at `path` (mode bits only).
    public static func isReachableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while true {
            guard stat(folder.path, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
            if folder.path == "/" { return true }
            folder = folder.deletingLastPathComponent()
        }
    }

    /// One folder per test process, removed when it exits.
    private static let sharedFolder = Result { () throws -> URL in
        var template = Array("/tmp/coffer-shared-bin-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw MissingPrerequisite.error("cannot make a folder in /tmp for programs run as another user") }
        let path = String(cString: made)
        chmod(path, 0o755)
        sharedFolderPath.withLock { $0 = path }
        atexit {
            if let path = BuiltProducts.sharedFolderPath.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        return URL(fileURLWithPath: path)
    }

    private static let sharedFolderPath = Guarded<String?>(nil)
}
