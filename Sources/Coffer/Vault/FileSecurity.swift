import CLinux
import CofferAgentWire
import Glibc

/// Permission rules for vault files, key files and their folders.
///
/// A private file is a regular file owned by the current user with no group or other
/// permission bits (0600 or stricter). A safe folder is owned by the user or root and not
/// writable by group or others, unless it has the sticky bit (as /tmp does).
///
/// Files are checked through the descriptor that is used, never by a path checked first and
/// opened later: symbolic links are resolved once (``realPath(of:)``) and the real file and
/// its real folder are checked.
enum FileSecurity {
    /// The path with every symbolic link resolved. Throws ``CofferError/vaultNotFound(path:)``
    /// when nothing is there.
    static func realPath(of path: String) throws(CofferError) -> String {
        do { return try PathSafety.realPath(of: path) } catch { throw CofferError(error) }
    }

    /// Opens an existing file for reading without following a symbolic link, and checks it is
    /// private: a FIFO, a device or a symbolic link is refused without being opened
    /// (``openRegularFile(at:followingLinks:)``). The caller closes the descriptor.
    static func openPrivateFile(at path: String, missing: CofferError) throws(CofferError) -> Int32 {
        let descriptor: Int32
        do throws(RegularFileFailure) {
            descriptor = try openRegularFile(at: path, followingLinks: false)
        } catch {
            switch error {
            case .notFound: throw missing
            case .symbolicLink: throw .insecurePermissions(path: path, reason: "a symbolic link")
            case .notRegular: throw .insecurePermissions(path: path, reason: "not a regular file")
            case .openDatabase: throw .invalidArgument(reason: "\(path) is a vault this process has open")
            case .other(let reason): throw .storageUnavailable(reason: "cannot open \(path): \(reason)")
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = describeErrno()
            close(descriptor)
            throw .storageUnavailable(reason: "cannot stat \(path): \(reason)")
        }
        do {
            try checkPrivate(info, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Why ``openRegularFile(at:followingLinks:)`` opened nothing.
    enum RegularFileFailure: Error {
        case notFound, symbolicLink, notRegular
        /// A file this process has open through SQLite (``OpenDatabaseFiles``).
        case openDatabase
        case other(String)
    }

    /// Opens the regular file at `path` for reading, opening nothing else on the way (a FIFO, a
    /// device) and never a file this process has open through SQLite, whose locks closing the
    /// descriptor would drop (``OpenDatabaseFiles``). The caller closes the descriptor.
    static func openRegularFile(at path: String, followingLinks: Bool) throws(RegularFileFailure) -> Int32 {
        let descriptor = OpenDatabaseFiles.openRegular(path, followingLinks: followingLinks)
        guard descriptor < 0 else { return descriptor }
        switch errno {
        case ENOENT: throw .notFound
        case ELOOP: throw .symbolicLink
        case EINVAL: throw .notRegular
        case EBUSY: throw .openDatabase
        default: throw .other(describeErrno())
        }
    }

    /// Checks that `path` (not followed if it is a symbolic link) is a private file, by its path:
    /// for a file SQLite then opens, whose descriptors ``checkOpenDescriptors(of:)`` checks again.
    static func checkPrivateFile(at path: String, missing: CofferError) throws(CofferError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { throw missing }
            throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
        }
        guard info.st_mode & S_IFMT != S_IFLNK else { throw .insecurePermissions(path: path, reason: "a symbolic link") }
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
        do { try PathSafety.checkFolder(at: path) } catch { throw CofferError(error) }
    }

    /// Checks the files SQLite has open for the database at `path` (the file, its -wal and its
    /// -shm) through this process's own descriptors on them, so that what is checked is what
    /// SQLite reads and writes, whatever happened to the paths meanwhile. The -wal and -shm
    /// need not exist. Where /proc is not mounted, the paths are checked instead (`lstat`).
    /// Returns the files checked, by device and inode.
    @discardableResult
    static func checkOpenDescriptors(of path: String) throws(CofferError) -> Set<OpenDatabaseFiles.Identity> {
        let names = Set(["", "-wal", "-shm"].map { path + $0 })
        guard let folder = opendir("/proc/self/fd") else {
            return try checkPathsWithoutProc(names)
        }
        defer { closedir(folder) }
        var checked = Set<OpenDatabaseFiles.Identity>()
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { continue }
            let linked = target.prefix(length).withUnsafeBufferPointer { String(decoding: UnsafeRawBufferPointer($0), as: UTF8.self) }
            guard names.contains(linked) else { continue }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { continue }
            try checkPrivate(info, path: linked)
            checked.insert(OpenDatabaseFiles.Identity(info))
        }
        return checked
    }

    private static func checkPathsWithoutProc(_ paths: Set<String>) throws(CofferError) -> Set<OpenDatabaseFiles.Identity> {
        var checked = Set<OpenDatabaseFiles.Identity>()
        for path in paths.sorted() {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                if errno == ENOENT { continue }
                throw .storageUnavailable(reason: "cannot stat \(path): \(describeErrno())")
            }
            try checkPrivate(info, path: path)
            checked.insert(OpenDatabaseFiles.Identity(info))
        }
        return checked
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

    static func parentFolder(of path: String) -> String { PathSafety.parentFolder(of: path) }

    /// Whether `path` lies on a file system mounted read-only (`ST_RDONLY`).
    static func isOnReadOnlyMedia(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Nothing is at `path`: `existing` (by default ``CofferError/vaultExists(path:)``) for a
    /// regular file, and ``CofferError/invalidArgument(reason:)`` naming anything else there.
    static func checkFreeForNewFile(_ path: String, existing: CofferError? = nil) throws(CofferError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: throw existing ?? .vaultExists(path: path)
        case S_IFDIR: throw .invalidArgument(reason: "\(path) is a folder")
        case S_IFLNK: throw .invalidArgument(reason: "\(path) is a symbolic link")
        default: throw .invalidArgument(reason: "\(path) is not a regular file")
        }
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

extension CofferError {
    /// The error for a path that fails one of ``PathSafety``'s checks.
    init(_ problem: PathSafety.Problem) {
        switch problem {
        case .missing(let path): self = .vaultNotFound(path: path)
        case .unavailable(let reason): self = .storageUnavailable(reason: reason)
        case .insecure(let path, let reason): self = .insecurePermissions(path: path, reason: reason)
        case .notUTF8(let path): self = .invalidArgument(reason: "the real path of \(path) is not valid UTF-8")
        }
    }
}
