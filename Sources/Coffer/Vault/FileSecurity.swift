import Glibc

/// Permission rules for vault files, key files and their folders.
///
/// A private file is a regular file owned by the current user with no group or other
/// permission bits (0600 or stricter). A safe folder is owned by the user or root and not
/// writable by group or others, unless it has the sticky bit (as /tmp does).
enum FileSecurity {
    static func checkPrivateFile(at path: String) throws(CofferError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw .vaultNotFound(path: path) }
            throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
        }
        try checkPrivate(info, path: path)
    }

    static func checkPrivate(_ info: stat, path: String) throws(CofferError) {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .insecurePermissions(path: path, reason: "not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw .insecurePermissions(path: path, reason: "owned by another user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecurePermissions(
                path: path, reason: "mode \(String(info.st_mode & 0o777, radix: 8)) lets others in; expected 600")
        }
    }

    static func checkFolder(at path: String) throws(CofferError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw .vaultNotFound(path: path) }
            throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .insecurePermissions(path: path, reason: "not a folder")
        }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            throw .insecurePermissions(path: path, reason: "owned by another user")
        }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw .insecurePermissions(path: path, reason: "writable by others")
        }
    }

    /// Creates `path` and any missing parents with mode 0700.
    static func createPrivateFolder(at path: String) throws(CofferError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = parentFolder(of: path)
        if parent != path { try createPrivateFolder(at: parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        _ = chmod(path, 0o700)
    }

    /// Flushes a folder's entries, so a rename or link in it is durable.
    static func syncFolder(at path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    static func syncFile(at path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

/// The text of the current `errno`.
func describeErrno() -> String {
    String(cString: strerror(errno))
}
