import CofferAgentWire
import FoundationEssentials
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
        let location: (folder: String, stateParent: String?)
        do { location = try RuntimeFolderLocation.resolve { environment[$0] } } catch { throw CofferError(error) }
        if let stateParent = location.stateParent { try FileSecurity.createPrivateFolder(at: stateParent) }
        return try privateFolder(at: location.folder)
    }

    /// `path`, created with mode 0700 if missing, after ``checkPrivate(_:)``.
    public static func privateFolder(at path: String) throws(CofferError) -> URL {
        if mkdir(path, 0o700) == 0 {
            _ = chmod(path, 0o700)  // whatever the umask
        } else if errno != EEXIST {
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        try checkPrivate(path)
        return URL(fileURLWithPath: path)
    }

    /// Checks that `path` is a folder owned by the user with no permissions for group or others,
    /// and that every folder above it (its real path's) is the user's or root's and not writable by
    /// others unless sticky (as `/tmp` is), so that nobody else can move it aside. Creates nothing.
    public static func checkPrivate(_ path: String) throws(CofferError) {
        do { try PathSafety.checkPrivateFolder(path) } catch { throw CofferError(error) }
    }
}
