import CLinux
import Coffer
import CofferBase
import Dispatch
import Glibc

/// SHA-256 digests of programs' files, remembered by what identifies a file's content on disk:
/// (device, inode, size, modification time, change time). Any write changes the change time, which
/// no user can set, so a file changed in place gets a new key. A file being hashed by one caller
/// is waited for by the others, so no file is hashed twice at once.
package final class FileDigests: Sendable {
    /// Files larger than this get no digest (so they match no pin): hashing stops a thread for
    /// about a second a gigabyte.
    package static let maxFileBytes: Int64 = 1 << 30
    /// Digests kept; past this, the oldest are forgotten.
    package static let capacity = 1024

    struct Key: Hashable {
        let device: UInt64, inode: UInt64, size: Int64
        let modified: timespec, changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (a: Key, b: Key) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
                && a.modified.tv_nsec == b.modified.tv_nsec && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(device)
            hasher.combine(inode)
            hasher.combine(size)
            hasher.combine(modified.tv_sec)
            hasher.combine(modified.tv_nsec)
            hasher.combine(changed.tv_sec)
            hasher.combine(changed.tv_nsec)
        }
    }

    /// A digest being computed: the others wait on `done`, each passing the signal on.
    private final class Pending: Sendable {
        let done = DispatchSemaphore(value: 0)
        let digest = Guarded<[UInt8]?>(nil)
    }

    private enum Entry {
        case ready([UInt8], order: UInt64)
        case pending(Pending)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var counter: UInt64 = 0
    }

    private let state = Guarded(State())
    /// How many files were hashed (read whole): what the cache saves, for tests and benchmarks.
    private let hashedCount = Guarded(0)

    /// The digests every resolver of the process shares by default (the agent's socket and its
    /// Secret Service alike), so that no file is hashed twice in a process.
    package static let shared = FileDigests()

    package init() {}

    /// Files hashed so far.
    package var filesHashed: Int { hashedCount.withLock { $0 } }

    /// Files being hashed now.
    package var filesBeingHashed: Int {
        state.withLock { state in
            state.entries.values.count { entry in
                if case .pending = entry { return true }
                return false
            }
        }
    }

    /// Whether ``digest(of:_:)`` would answer for the file whose `stat` is `info` without
    /// reading it: its digest is known, or it gets none for its kind or size.
    func isKnown(_ info: stat) -> Bool {
        guard info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) <= Self.maxFileBytes else { return true }
        return state.withLock { state in
            if case .ready? = state.entries[Key(info)] { return true }
            return false
        }
    }

    /// The digest of the regular file open at `descriptor` (read from its start), whose
    /// `fstat` is `info`; `nil` when it is too large, on a FUSE file system (whose content
    /// its user-space server may give each reader differently), changes while being read, or
    /// cannot be read.
    func digest(of descriptor: Int32, _ info: stat) -> [UInt8]? {
        guard info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) <= Self.maxFileBytes, !Self.isFUSE(descriptor) else { return nil }
        let key = Key(info)
        enum Step {
            case found([UInt8])
            case wait(Pending)
            case compute(Pending)
        }
        let step: Step = state.withLock { state in
            switch state.entries[key] {
            case .ready(let digest, _): return .found(digest)
            case .pending(let pending): return .wait(pending)
            case nil:
                let pending = Pending()
                state.entries[key] = .pending(pending)
                return .compute(pending)
            }
        }
        switch step {
        case .found(let digest):
            return digest
        case .wait(let pending):
            pending.done.wait()
            pending.done.signal()
            return pending.digest.withLock { $0 }
        case .compute(let pending):
            let digest = Self.hash(descriptor, expecting: key)
            hashedCount.withLock { $0 += 1 }
            state.withLock { state in
                if let digest {
                    state.counter += 1
                    state.entries[key] = .ready(digest, order: state.counter)
                    evictOldest(&state)
                } else {
                    state.entries[key] = nil
                }
            }
            pending.digest.withLock { $0 = digest }
            pending.done.signal()
            return digest
        }
    }

    private func evictOldest(_ state: inout State) {
        guard state.entries.count > Self.capacity else { return }
        let ready = state.entries.compactMap { key, entry -> (Key, UInt64)? in
            if case .ready(_, let order) = entry { (key, order) } else { nil }
        }
        for (key, _) in ready.sorted(by: { $0.1 < $1.1 }).prefix(state.entries.count - Self.capacity) {
            state.entries[key] = nil
        }
    }

    /// SHA-256 of the whole file; `nil` when a read fails or the file's key changed meanwhile.
    private static func hash(_ descriptor: Int32, expecting key: Key) -> [UInt8]? {
        var hasher = SHA256Hasher()
        let chunk = 1 << 18
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let got = pread(descriptor, buffer.baseAddress!, chunk, off_t(offset))
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
            offset += Int64(got)
            guard offset <= maxFileBytes else { return nil }
        }
        var after = stat()
        guard fstat(descriptor, &after) == 0, Key(after) == key, offset == key.size else { return nil }
        return hasher.finish()
    }

    /// Whether the file is on FUSE; a file system that cannot be told counts as FUSE.
    private static func isFUSE(_ descriptor: Int32) -> Bool {
        coffer_is_fuse(descriptor) != 0
    }
}
