import Glibc

/// The checks on paths that both the agent's clients and the vault make, without Foundation:
/// real paths, safe folders and private folders (docs/security.md, "Files and folders").
///
/// A safe folder is owned by the user or root and not writable by group or others, unless it has
/// the sticky bit (as /tmp does). A private folder is the user's own with no permission for group
/// or others, and every folder above its real path is safe, so that nobody else can move it aside.
package enum PathSafety {
    /// Why a path fails a check.
    package enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing is at `path`.
        case missing(path: String)
        /// The check itself could not be made.
        case unavailable(reason: String)
        /// `path` is there but unsafe.
        case insecure(path: String, reason: String)
        /// The real path is not valid UTF-8.
        case notUTF8(path: String)

        /// The same text as the `CofferError` it maps to.
        package var description: String {
            switch self {
            case .missing(let path): "no vault at \(path)"
            case .unavailable(let reason): "storage unavailable: \(reason)"
            case .insecure(let path, let reason): "insecure permissions on \(path): \(reason)"
            case .notUTF8(let path): "invalid argument: the real path of \(path) is not valid UTF-8"
            }
        }
    }

    /// The path with every symbolic link resolved.
    package static func realPath(of path: String) throws(Problem) -> String {
        guard let resolved = realpath(path, nil) else {
            if errno == ENOENT || errno == ENOTDIR { throw .missing(path: path) }
            throw .unavailable(reason: "cannot resolve \(path): \(describe(errno))")
        }
        defer { free(resolved) }
        guard let text = String(validatingCString: resolved) else { throw .notUTF8(path: path) }
        return text
    }

    /// Checks that `path` is a safe folder (following a symbolic link).
    package static func checkFolder(at path: String) throws(Problem) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw .missing(path: path) }
            throw .unavailable(reason: "cannot stat \(path): \(describe(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .insecure(path: path, reason: "not a folder") }
        guard info.st_uid == geteuid() || info.st_uid == 0 else { throw .insecure(path: path, reason: "owned by another user") }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else { throw .insecure(path: path, reason: "writable by others") }
    }

    /// Checks that `path` (not followed if a symbolic link) is a private folder with safe folders
    /// above it. Creates nothing.
    package static func checkPrivateFolder(_ path: String) throws(Problem) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { throw .unavailable(reason: "\(path) does not exist") }
            throw .unavailable(reason: "cannot stat \(path): \(describe(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .insecure(path: path, reason: "not a folder") }
        guard info.st_uid == geteuid() else { throw .insecure(path: path, reason: "owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .insecure(path: path, reason: "mode \(String(info.st_mode & 0o777, radix: 8)) lets others in; expected 700")
        }
        var ancestor = parentFolder(of: try realPath(of: path))
        while true {
            try checkFolder(at: ancestor)
            let parent = parentFolder(of: ancestor)
            if parent == ancestor { break }
            ancestor = parent
        }
    }

    /// The folder that holds `path`: `/` for a path at the root, `.` for a bare name.
    package static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `strerror`'s text for `code`.
    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
