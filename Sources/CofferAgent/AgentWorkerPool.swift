import Coffer
import CofferBase
import CofferProcess
import Glibc

/// Threads of the agent's own that run jobs in the order they come. None of them is one of
/// Dispatch's shared threads, so a long job (an unlock's Argon2id) holds up only its own thread,
/// and no number of connections can exhaust them.
final class AgentWorkerPool: @unchecked Sendable {
    // The queue and the counts, behind `mutex`; `condition` wakes waiting threads.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false
    private var running = 0

    /// Starts `threads` threads named `name`.
    init(threads: Int, name: String) {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
        running = threads
        for index in 0..<threads {
            let started = DetachedThread.start(name: "\(name) \(index + 1)") { [self] in work() }
            guard !started else { continue }
            pthread_mutex_lock(mutex)
            running -= 1
            pthread_mutex_unlock(mutex)
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !stopping else { return }
        jobs.append(job)
        pthread_cond_signal(condition)
    }

    /// Drops the jobs still queued, lets the running ones finish, and returns when every thread has ended.
    func stop() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        stopping = true
        jobs.removeAll()
        pthread_cond_broadcast(condition)
        while running > 0 { pthread_cond_wait(condition, mutex) }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            while jobs.isEmpty, !stopping { pthread_cond_wait(condition, mutex) }
            if stopping { break }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
        }
        running -= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
