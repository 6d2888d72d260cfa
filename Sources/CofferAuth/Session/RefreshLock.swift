import Coffer
import CofferBase
import Crypto
import Foundation
import Glibc

/// An exclusive lock that every process of the user sees: `flock` on a file in a private
/// folder. Refreshing a session holds it, so two processes never spend one refresh token
/// twice (which a provider that rotates refresh tokens takes for theft, revoking the family).
struct RefreshLock: ~Copyable {
    private let descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Lock files' paths by name and folder, worked out once per process.
    private static let paths = Guarded<[String: String]>([:])
    /// Lock files' descriptors kept open between refreshes, by path: one unlocked descriptor a
    /// path, taken by one holder at a time (`flock` locks an open file, so two holders sharing
    /// one descriptor would not exclude each other). Opening the file again for every refresh
    /// cost more than the rest of the lock (docs/performance.md, the refresh).
    private static let idle = Guarded<[String: Int32]>([:])

    /// Waits up to `timeout` for the lock named `name` in `folder` (default: ``RuntimeFolder``/locks).
    static func acquire(name: String, folder: URL?, timeout: Duration) async throws(AuthError) -> RefreshLock {
        var path = try knownPath(name: name, folder: folder)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let lock = try attempt(path: &path, name: name, folder: folder) { return lock }
            guard ContinuousClock.now < deadline else { throw .timeout }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { throw .cancelled }
        }
    }

    /// ``acquire(name:folder:timeout:)`` for a thread that may block (an agent worker's, never
    /// one of the concurrency pool's).
    static func acquireBlocking(name: String, folder: URL?, timeout: Duration) throws(AuthError) -> RefreshLock {
        var path = try knownPath(name: name, folder: folder)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let lock = try attempt(path: &path, name: name, folder: folder) { return lock }
            guard ContinuousClock.now < deadline else { throw .timeout }
            usleep(10_000)
        }
    }

    /// The lock file's path for `name` in `folder`, worked out once per process.
    private static func knownPath(name: String, folder: URL?) throws(AuthError) -> String {
        let key = name + "\u{0}" + (folder?.path ?? "")
        if let known = paths.withLock({ $0[key] }) { return known }
        let path = try lockPath(name: name, folder: folder)
        paths.withLock { $0[key] = path }
        return path
    }

    /// One try at the lock at `path` (worked out again when its folder went away): the lock,
    /// or `nil` when another holder has it.
    private static func attempt(path: inout String, name: String, folder: URL?) throws(AuthError) -> RefreshLock? {
        while true {
            var descriptor = idle.withLock { $0.removeValue(forKey: path) } ?? -1
            if descriptor < 0 {
                descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                if descriptor < 0, errno == ENOENT {
                    // The folder went away since the path was worked out: make it again.
                    path = try lockPath(name: name, folder: folder)
                    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                }
            }
            guard descriptor >= 0 else {
                throw .storage(.storageUnavailable(reason: "cannot open the refresh lock \(path): \(String(cString: strerror(errno)))"))
            }
            var locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            while !locked, errno == EINTR { locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
            guard locked else {
                let failure = errno
                // Another holder has it: the descriptor is kept for the next try, as at a release.
                if failure == EWOULDBLOCK {
                    setAside(descriptor, for: path)
                    return nil
                }
                close(descriptor)
                throw .storage(.storageUnavailable(reason: "cannot lock the refresh lock \(path): \(String(cString: strerror(failure)))"))
            }
            // A kept descriptor may be open on a file removed or replaced since: only a lock on
            // the file the path names now excludes the other processes.
            if isFile(descriptor, at: path) { return RefreshLock(descriptor: descriptor, path: path) }
            close(descriptor)
        }
    }

    /// Whether `descriptor` is open on the file at `path`.
    private static func isFile(_ descriptor: Int32, at path: String) -> Bool {
        var held = stat(), named = stat()
        guard fstat(descriptor, &held) == 0, lstat(path, &named) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// Runs `body` holding the lock named `name` (waiting up to `timeout` for it), on the
    /// caller's actor, and releases it after: every refresh that spends a refresh token runs so.
    static func run<Value>(
        name: String, folder: URL?, timeout: Duration, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(AuthError) -> Value
    ) async -> Result<Value, AuthError> {
        let lock: RefreshLock
        do throws(AuthError) { lock = try await acquire(name: name, folder: folder, timeout: timeout) } catch { return .failure(error) }
        let result: Result<Value, AuthError>
        do throws(AuthError) { result = .success(try await body()) } catch { result = .failure(error) }
        lock.release()
        return result
    }

    /// Runs `body`, which writes the stored session, holding the lock named `name`: a refresh
    /// in flight (in this process or another) stores its rotated session first, and no refresh
    /// starts until `body` is done, so neither writes over the other. When the lock cannot be
    /// had (not within `timeout`, when another process's refresh hangs; not at all, when its
    /// file cannot be opened or the caller is cancelled), `body` runs anyway: a login or a
    /// logout never waits on another process for longer, nor fails for want of the lock.
    static func writing<Value>(
        name: String, folder: URL?, timeout: Duration, isolation: isolated (any Actor)? = #isolation,
        _ body: () throws(AuthError) -> Value
    ) async throws(AuthError) -> Value {
        let lock = try? await acquire(name: name, folder: folder, timeout: timeout)
        defer { _ = lock }
        return try body()
    }

    /// ``writing(name:folder:timeout:isolation:_:)`` on a thread that may block.
    static func writingBlocking<Value, Failure: Error>(
        name: String, folder: URL?, timeout: Duration, _ body: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let lock = try? acquireBlocking(name: name, folder: folder, timeout: timeout)
        defer { _ = lock }
        return try body()
    }

    /// Releases the lock (the holder's last use of it).
    consuming func release() {}

    /// Unlocks the file and keeps the descriptor for the next holder (or closes it when
    /// another is kept already).
    deinit {
        flock(descriptor, LOCK_UN)
        Self.setAside(descriptor, for: path)
    }

    /// Keeps the unlocked `descriptor` for the next holder of `path`, or closes it when another
    /// is kept already.
    private static func setAside(_ descriptor: Int32, for path: String) {
        let kept = idle.withLock { idle in
            guard idle[path] == nil else { return false }
            idle[path] = descriptor
            return true
        }
        if !kept { close(descriptor) }
    }

    private static func lockPath(name: String, folder: URL?) throws(AuthError) -> String {
        let base: URL
        if let folder {
            base = folder
        } else {
            do throws(CofferError) {
                base = try RuntimeFolder.privateFolder(at: RuntimeFolder.url().path + "/locks")
            } catch {
                throw .storage(error)
            }
        }
        let digest = Hex.encode(SHA256.hash(data: Data(name.utf8)).prefix(16))
        return base.path + "/refresh-\(digest).lock"
    }
}
