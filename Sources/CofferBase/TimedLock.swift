import Glibc

/// A lock that a thread gives up waiting for after a time, for work that holds a deadline.
///
/// `pthread_mutex_timedlock` underneath, which ThreadSanitizer intercepts (see ``Guarded``). The
/// wait is measured on the monotonic clock and then turned into the wall-clock instant the call
/// takes, so a clock step can shorten or stretch a wait but never make it unbounded.
package final class TimedLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting at most `timeout`; false when the time ran out first.
    package func lock(waitingAtMost timeout: Duration) -> Bool {
        if pthread_mutex_trylock(mutex) == 0 { return true }
        var limit = timespec()
        clock_gettime(CLOCK_REALTIME, &limit)
        let wait = max(timeout, .zero).components
        let nanoseconds = Int(limit.tv_nsec) + Int(wait.attoseconds / 1_000_000_000)
        limit.tv_sec += Int(clamping: wait.seconds) + nanoseconds / 1_000_000_000
        limit.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_mutex_timedlock(mutex, &limit) == 0
    }

    /// Releases the lock taken by ``lock(waitingAtMost:)``.
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
