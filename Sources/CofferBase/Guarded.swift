import Glibc

/// A value guarded by a `pthread_mutex_t`, which one thread at a time may use: every Coffer
/// module keeps its shared state in one. (Named for the mutex, not for a locked vault.)
///
/// It does what `Synchronization.Mutex` does, with a lock that ThreadSanitizer sees: Mutex's
/// contended path runs in the toolchain's uninstrumented `libswiftSynchronization.so`, so under
/// `make sanitize` every contended use of state behind a Mutex reads as a data race, and real
/// races in the same state would hide among them. `pthread_mutex_lock` is intercepted.
package final class Guarded<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, if the lock is had within `timeout`; nil when
    /// the time ran out first. The wait is turned into the wall-clock instant
    /// `pthread_mutex_timedlock` takes (ThreadSanitizer intercepts it too).
    package func withLock<Result, E: Error>(
        waitingAtMost timeout: Duration, _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result? {
        if pthread_mutex_trylock(mutex) != 0 {
            var limit = timespec()
            clock_gettime(CLOCK_REALTIME, &limit)
            let wait = max(timeout, .zero).components
            let nanoseconds = Int(limit.tv_nsec) + Int(wait.attoseconds / 1_000_000_000)
            limit.tv_sec += Int(clamping: wait.seconds) + nanoseconds / 1_000_000_000
            limit.tv_nsec = nanoseconds % 1_000_000_000
            guard pthread_mutex_timedlock(mutex, &limit) == 0 else { return nil }
        }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
