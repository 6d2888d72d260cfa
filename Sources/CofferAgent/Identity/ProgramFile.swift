import CLinux
import Coffer
import Glibc

/// A program's file, its executable or its script, as an identity records it: its real path,
/// its SHA-256 and whether the pin rule (``PinRule``) applies.
///
/// The path is the one the kernel gives, checked against what the agent itself finds there: a
/// process in another mount namespace (a user namespace's bind mount over `/usr/bin/git`, a
/// chroot) gets from the kernel a path that names, for the agent, another file. Such a path,
/// and a deleted file's, is marked (` (unreachable)`, the kernel's ` (deleted)`), so that it
/// matches no path stored without the mark, and it is pinned.
struct ProgramFile {
    /// The path, perhaps marked.
    let path: [UInt8]
    /// The path as the kernel named it, unmarked: its last component names the interpreter.
    let kernelPath: [UInt8]
    let digest: [UInt8]?
    let pinned: Bool

    static let deleted = Array(" (deleted)".utf8)
    static let unreachable = Array(" (unreachable)".utf8)
    static let unreadable = Array(" (unreadable)".utf8)

    /// The executable of process `pid`, running as `uid`, through `/proc/PID/exe`, and what
    /// identifies the file's content (for telling, later, whether the process still runs it).
    static func executable(of pid: pid_t, uid: uid_t, digests: FileDigests) throws(CallerResolutionError) -> (ProgramFile, FileDigests.Key) {
        let link = "/proc/\(pid)/exe"
        guard let name = ProcFiles.link(link) else { throw failure(errno, reading: "exe") }
        var info = stat()
        guard stat(link, &info) == 0 else { throw failure(errno, reading: "exe") }
        // Opening needs read permission on the file itself, which a root-owned mode 0711 program
        // withholds: then it has no digest.
        let descriptor = open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        defer { if descriptor >= 0 { close(descriptor) } }
        return (try make(name: name, info: info, descriptor: descriptor, uid: uid, digests: digests), FileDigests.Key(info))
    }

    /// What identifies the content of process `pid`'s executable now; `nil` when it cannot be read.
    static func executableKey(of pid: pid_t) -> FileDigests.Key? {
        var info = stat()
        return stat("/proc/\(pid)/exe", &info) == 0 ? FileDigests.Key(info) : nil
    }

    /// The script `name` that process `pid`'s command line gives, opened through the process's
    /// root (an absolute name) or its working folder (a relative one), as the interpreter did.
    /// A name that opens no regular file is kept, made absolute and marked ` (unreadable)`.
    static func script(_ name: [UInt8], of pid: pid_t, uid: uid_t, digests: FileDigests) throws(CallerResolutionError) -> ProgramFile {
        let absolute = name.first == UInt8(ascii: "/")
        let through = Array((absolute ? "/proc/\(pid)/root" : "/proc/\(pid)/cwd/").utf8) + name
        // The process names the file: opened only once known to be a regular file.
        let descriptor = OpenDatabaseFiles.openRegular(ProcFiles.cPath(through), followingLinks: true)
        defer { if descriptor >= 0 { close(descriptor) } }
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0, let real = ProcFiles.link("/proc/self/fd/\(descriptor)")
        else {
            // The process's folder tells whether the agent may look into the process at all.
            guard let folder = ProcFiles.link("/proc/\(pid)/cwd") else { throw failure(errno, reading: "cwd") }
            let lexical = absolute ? name : folder + (folder.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]) + name
            return ProgramFile(path: lexical + unreadable, kernelPath: lexical, digest: nil, pinned: false)
        }
        return try make(name: real, info: info, descriptor: descriptor, uid: uid, digests: digests)
    }

    private static func make(name: [UInt8], info: stat, descriptor: Int32, uid: uid_t, digests: FileDigests) throws(CallerResolutionError) -> ProgramFile {
        let digest = descriptor >= 0 ? digests.digest(of: descriptor, info) : nil
        var path = name, kernelPath = name, pinned = true
        if name.count > deleted.count, name.suffix(deleted.count).elementsEqual(deleted) {
            kernelPath = Array(name.dropLast(deleted.count))
        } else if isAtItsPath(name, info) {
            pinned = PinRule.userCanModify(name, uid: uid)
        } else {
            path = name + unreachable
        }
        guard digest != nil || !pinned else {
            throw .unreadable("\(Program.printable(path)) could be changed by its user, and its content cannot be read to pin it")
        }
        return ProgramFile(path: path, kernelPath: kernelPath, digest: digest, pinned: pinned)
    }

    /// Whether `name`, looked up by the agent, is the file described by `info`.
    private static func isAtItsPath(_ name: [UInt8], _ info: stat) -> Bool {
        var found = stat()
        return stat(ProcFiles.cPath(name), &found) == 0 && found.st_dev == info.st_dev && found.st_ino == info.st_ino
    }

    /// The error for a failed read of `/proc/PID/<file>`.
    static func failure(_ code: Int32, reading file: String) -> CallerResolutionError {
        switch code {
        case EACCES, EPERM: .notInspectable
        case ENOENT, ESRCH: .ended
        default: .unreadable("/proc/PID/\(file): \(String(cString: strerror(code)))")
        }
    }
}
