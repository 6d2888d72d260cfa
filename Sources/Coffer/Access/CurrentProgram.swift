import Glibc

extension Program {
    /// This process's program, as a vault records the owner of an item it creates: the
    /// executable's real path (from `/proc/self/exe`), and when the user could modify the file
    /// (``PinRule``), its SHA-256, pinned (docs/security.md). A root-owned system program is
    /// matched by its path alone and costs no hashing. Worked out once per process; `nil` when
    /// `/proc/self/exe` cannot be read, or the file of a program that must be pinned cannot.
    ///
    /// The executable alone: an interpreter's script, a sandboxed app and a systemd unit are
    /// for the agent's caller identity, which sees other processes.
    package static func current() -> Program? { currentProgram }

    private static let currentProgram: Program? = {
        guard let path = readLink("/proc/self/exe") else { return nil }
        guard PinRule.userCanModify(path, uid: geteuid()) else { return try? Program(executablePath: path) }
        guard let digest = SHA256Hasher.digest(ofFileAt: "/proc/self/exe") else { return nil }
        return try? Program(executablePath: path, executableDigest: digest, executablePinned: true)
    }()

    /// The target of a symbolic link, as bytes; `nil` when it cannot be read.
    private static func readLink(_ path: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        guard count > 0, count < buffer.count else { return nil }
        return Array(buffer[..<count])
    }
}
