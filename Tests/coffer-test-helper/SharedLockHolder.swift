import Glibc

/// `shared-lock-holder FILE`: the PID of a process holding SQLite's shared lock on the database
/// FILE (a read lock on the shared byte range, which an open connection in WAL mode keeps for
/// as long as it is open), or `none`. Another process must ask: a process never sees its own locks.
enum SharedLockHolder {
    /// SQLite's shared lock range (os_unix.c): `PENDING_BYTE` (0x40000000) + 2, 510 bytes.
    private static let sharedFirst: off_t = 0x4000_0002
    private static let sharedSize: off_t = 510

    /// Runs the command in `arguments` and returns its exit status; `nil` when it is not this one.
    static func run(_ arguments: [String]) -> Int32? {
        guard arguments.count == 2, arguments[0] == "shared-lock-holder" else { return nil }
        let descriptor = open(arguments[1], O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            print("cannot open \(arguments[1]): errno \(errno)")
            return 1
        }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = sharedFirst
        lock.l_len = sharedSize
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else {
            print("F_GETLK failed: errno \(errno)")
            return 1
        }
        print(lock.l_type == Int16(F_UNLCK) ? "none" : "\(lock.l_pid)")
        return 0
    }
}
