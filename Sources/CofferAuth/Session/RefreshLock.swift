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

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Waits up to `timeout` for the lock named `name` in `folder` (default: ``RuntimeFolder``/locks).
    static func acquire(name: String, folder: URL?, timeout: Duration) async throws(AuthError) -> RefreshLock {
        let path = try lockPath(name: name, folder: folder)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .storage(.storageUnavailable(reason: "cannot open the refresh lock \(path): \(String(cString: strerror(errno)))"))
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                throw .timeout
            }
            do { try await Task.sleep(for: .milliseconds(10)) } catch {
                close(descriptor)
                throw .cancelled
            }
        }
        return RefreshLock(descriptor: descriptor)
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

    /// Releases the lock (the holder's last use of it).
    consuming func release() {}

    /// Closing the descriptor releases the lock.
    deinit {
        close(descriptor)
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
