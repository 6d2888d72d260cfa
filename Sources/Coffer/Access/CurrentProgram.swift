import CSodium
import Glibc

extension Program {
    /// This process's program, as a vault records the owner of an item it creates: the
    /// executable's real path (from `/proc/self/exe`), and when the user can modify the file,
    /// its SHA-256, pinned (docs/security.md). A root-owned system program is matched by its
    /// path alone and costs no hashing. Worked out once per process; `nil` when
    /// `/proc/self/exe` cannot be read, or the file of a program that must be pinned cannot.
    ///
    /// The executable alone: an interpreter's script, a sandboxed app and a systemd unit are
    /// for the agent's caller identity, which sees other processes.
    package static func current() -> Program? { currentProgram }

    private static let currentProgram: Program? = {
        guard let path = readLink("/proc/self/exe") else { return nil }
        guard userCanModify(path) else { return Program(executable: path) }
        guard let digest = fileDigest("/proc/self/exe") else { return nil }
        return Program(executable: path, executableDigest: digest, executablePinned: true)
    }()

    /// The target of a symbolic link, as UTF-8 text; `nil` when it cannot be read or is not UTF-8.
    static func readLink(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        guard count > 0, count < buffer.count else { return nil }
        return String(validating: buffer[..<count], as: UTF8.self)
    }

    /// The SHA-256 of the file at `path`, or `nil` when it cannot be read.
    static func fileDigest(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        Sodium.ensureInitialized()
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            crypto_hash_sha256_update(&state, buffer, UInt64(count))
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return digest
    }

    /// Whether this process's user can change the file at `path`: it owns the file, the file is
    /// writable by its group or others, or the user can write to its folder (and so replace it).
    static func userCanModify(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return true }
        if status.st_uid == geteuid() || status.st_mode & (S_IWGRP | S_IWOTH) != 0 { return true }
        return access(FileSecurity.parentFolder(of: path), W_OK) == 0
    }
}
