import Foundation
import Glibc

/// The user's private folder for run-time files (sockets and lock files):
/// `$XDG_RUNTIME_DIR/coffer`, or `/tmp/coffer-<uid>` when that variable is unset.
///
/// It is created with mode 0700 and, like a vault's folder, must be owned by the user and closed
/// to others, so that another user cannot plant a file or socket in it.
public enum RuntimeFolder {
    /// The folder, created if missing, after checking it is the user's own and private.
    public static func url(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> URL {
        let path: String
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            path = runtime + "/coffer"
        } else {
            path = "/tmp/coffer-\(geteuid())"
        }
        return try privateFolder(at: path)
    }

    /// `path`, created with mode 0700 if missing, after checking that it is a folder owned by
    /// the user with no permissions for group or others.
    public static func privateFolder(at path: String) throws(CofferError) -> URL {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .insecurePermissions(path: path, reason: "not a folder") }
        guard info.st_uid == geteuid() else { throw .insecurePermissions(path: path, reason: "owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecurePermissions(path: path, reason: "mode \(String(info.st_mode & 0o777, radix: 8)) lets others in; expected 700")
        }
        return URL(fileURLWithPath: path)
    }
}
