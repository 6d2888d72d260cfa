import Foundation
import Glibc

/// The user's private folder for run-time files (sockets and lock files):
/// `$XDG_RUNTIME_DIR/coffer`; without that variable, `coffer/run` in the user's state folder
/// (`$XDG_STATE_HOME`, else `~/.local/state`).
///
/// Never a predictable name in a folder others can write to, such as `/tmp`: another user could
/// create it first. It is created with mode 0700 and, like a vault's folder, must be owned by the
/// user and closed to others, in folders only the user or root can change, so that another user
/// cannot plant a file or socket in it.
public enum RuntimeFolder {
    /// The folder, created if missing, after checking it is the user's own and private.
    public static func url(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> URL {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return try privateFolder(at: runtime + "/coffer")
        }
        let state = try stateFolder(environment: environment)
        try FileSecurity.createPrivateFolder(at: state + "/coffer")
        return try privateFolder(at: state + "/coffer/run")
    }

    /// `path`, created with mode 0700 if missing, after ``checkPrivate(_:)``.
    public static func privateFolder(at path: String) throws(CofferError) -> URL {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        try checkPrivate(path)
        return URL(fileURLWithPath: path)
    }

    /// Checks that `path` is a folder owned by the user with no permissions for group or others,
    /// and that every folder above it (its real path's) is the user's or root's and not writable by
    /// others unless sticky (as `/tmp` is), so that nobody else can move it aside. Creates nothing.
    public static func checkPrivate(_ path: String) throws(CofferError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { throw .storageUnavailable(reason: "\(path) does not exist") }
            throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .insecurePermissions(path: path, reason: "not a folder") }
        guard info.st_uid == geteuid() else { throw .insecurePermissions(path: path, reason: "owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecurePermissions(path: path, reason: "mode \(String(info.st_mode & 0o777, radix: 8)) lets others in; expected 700")
        }
        var ancestor = FileSecurity.parentFolder(of: try FileSecurity.realPath(of: path))
        while true {
            try FileSecurity.checkFolder(at: ancestor)
            let parent = FileSecurity.parentFolder(of: ancestor)
            if parent == ancestor { break }
            ancestor = parent
        }
    }

    /// `$XDG_STATE_HOME` when it names an absolute path, else `~/.local/state`. The home folder
    /// (`$HOME`, else the user database's) must exist: nothing is created above it.
    private static func stateFolder(environment: [String: String]) throws(CofferError) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state }
        guard let home = environment["HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) ?? homeFromUserDatabase() else {
            throw .storageUnavailable(reason: "no folder for run-time files: set $XDG_RUNTIME_DIR, $XDG_STATE_HOME or $HOME")
        }
        var info = stat()
        guard stat(home, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .storageUnavailable(
                reason: "no folder for run-time files: the home folder \(home) does not exist; set $XDG_RUNTIME_DIR or $XDG_STATE_HOME")
        }
        return (home == "/" ? "" : home) + "/.local/state"
    }

    private static func homeFromUserDatabase() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
