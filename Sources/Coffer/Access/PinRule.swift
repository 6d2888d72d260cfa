import Glibc

/// When a program's digest is part of its identity (docs/security.md, "Pins"): when the user
/// it runs as could change the file at its path. Root's system programs are then matched by
/// path, so a distribution's update keeps their access; a program the user could replace is
/// matched by path and content, so replacing it loses access.
package enum PinRule {
    /// Whether `uid` could change what `path` (a real path: no symbolic links) holds: the file
    /// is `uid`'s or writable by group or others (the group may be one `uid` is in), or some
    /// folder above it is `uid`'s, or writable by group or others without the sticky bit (so
    /// the file, or a folder on the way, could be renamed away and replaced). A path that
    /// cannot be examined is taken as modifiable.
    package static func userCanModify(_ path: [UInt8], uid: uid_t) -> Bool {
        guard path.first == UInt8(ascii: "/") else { return true }
        var current = path
        var info = stat()
        guard lstat(cPath(current), &info) == 0 else { return true }
        if info.st_uid == uid || info.st_mode & 0o022 != 0 { return true }
        while current.count > 1 {
            let slash = current.lastIndex(of: UInt8(ascii: "/"))!
            current = slash == 0 ? [UInt8(ascii: "/")] : Array(current[..<slash])
            guard lstat(cPath(current), &info) == 0 else { return true }
            if info.st_uid == uid { return true }
            if info.st_mode & 0o022 != 0, info.st_mode & S_ISVTX == 0 { return true }
        }
        return false
    }

    private static func cPath(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
