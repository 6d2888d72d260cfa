import CofferBase
import CGio
import Coffer
import Dispatch
import Foundation

/// A thread of its own running a GLib main loop on a context of its own, where everything of
/// GDBus's happens: exports are registered there, so GDBus calls back there, and the resident
/// (the provider's objects) is created, used and dropped there. Other threads reach the
/// resident through ``perform(_:)``, which queues work on the loop, or, without waiting, through
/// ``withResidentIfIdle(_:)`` while the loop is waiting for work (GDBus's worker thread answers
/// the commonest calls so, ``WorkerThreadCalls``).
///
/// This keeps GLib's callbacks out of Swift concurrency: no task or actor guards the resident,
/// only ``residentLock``, which the loop holds whenever it is not waiting for work.
final class MainLoopThread<Resident: AnyObject>: @unchecked Sendable {
    // @unchecked: `context` is a GLib object safe from any thread (invoke, wakeup); `resident`
    // is read and written with `residentLock` held; `stopping` on the loop thread only.
    private let context: OpaquePointer
    private var resident: Resident?
    /// Held by the loop thread while it runs its setup, dispatches and its teardown: everything
    /// but its wait for work.
    private let residentLock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the loop ran and ``quit()`` has not yet waited for its end.
    private let running = Guarded(false)

    init() {
        context = g_main_context_new()
    }

    deinit {
        g_main_context_unref(context)
    }

    /// Starts the thread: `setUp` makes the resident there; once it has, the loop runs until
    /// ``quit()``, then `tearDown` runs there. Returns when `setUp` has returned or thrown.
    func start<E: Error>(name: String, setUp: @escaping @Sendable () throws(E) -> Resident, tearDown: @escaping @Sendable (Resident) -> Void) throws(E) {
        let started = DispatchSemaphore(value: 0)
        let failure = Guarded<E?>(nil)
        let thread = Thread { [self] in
            g_main_context_push_thread_default(context)
            _ = g_main_context_acquire(context)
            residentLock.lock()
            defer {
                residentLock.unlock()
                g_main_context_release(context)
                g_main_context_pop_thread_default(context)
                finished.signal()
            }
            do throws(E) {
                resident = try setUp()
            } catch {
                failure.withLock { $0 = error }
                started.signal()
                return
            }
            running.withLock { $0 = true }
            started.signal()
            run()
            if let resident { tearDown(resident) }
            resident = nil
            // Let GLib finish what the teardown queued (unregistrations, closing the connection).
            while g_main_context_iteration(context, 0) != 0 {}
        }
        thread.name = name
        thread.start()
        started.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The loop, until ``quit()``: GLib's own iteration (prepare, query, poll, check, dispatch),
    /// with ``residentLock`` let go while it polls, and only then. Called with the lock held.
    private func run() {
        var descriptors = [GPollFD](repeating: GPollFD(), count: 8)
        while !stopping {
            var priority: gint = 0
            _ = g_main_context_prepare(context, &priority)
            var timeout: gint = -1
            var count = g_main_context_query(context, priority, &timeout, &descriptors, gint(descriptors.count))
            if Int(count) > descriptors.count {
                descriptors = [GPollFD](repeating: GPollFD(), count: Int(count))
                count = g_main_context_query(context, priority, &timeout, &descriptors, gint(descriptors.count))
            }
            residentLock.unlock()
            _ = g_poll(&descriptors, guint(count), timeout)
            residentLock.lock()
            if g_main_context_check(context, priority, &descriptors, count) != 0 { g_main_context_dispatch(context) }
        }
    }

    /// Runs `body` with the resident on the calling thread, now, when the loop is waiting for
    /// work (it holds nothing then); `nil`, without waiting, when it is busy or has no resident.
    /// `body` must not wait for the loop thread.
    func withResidentIfIdle<R>(_ body: (Resident) -> R) -> R? {
        guard residentLock.try() else { return nil }
        defer { residentLock.unlock() }
        return resident.map(body)
    }

    /// Runs `body` with the resident on the loop thread, soon; never if the loop has stopped.
    func perform(_ body: @escaping @Sendable (Resident) -> Void) {
        let job = Unmanaged.passRetained(LoopJob { [self] in
            if let resident { body(resident) }
        }).toOpaque()
        g_main_context_invoke_full(context, 0, { userData in
            Unmanaged<LoopJob>.fromOpaque(userData!).takeUnretainedValue().run()
            return 0  // G_SOURCE_REMOVE
        }, job, { userData in Unmanaged<LoopJob>.fromOpaque(userData!).release() })
    }

    /// Runs `body` on the loop thread once what it is dispatching now is done (an idle source).
    /// Call it on the loop thread.
    func whenIdle(_ body: @escaping () -> Void) {
        let source = g_idle_source_new()
        let job = Unmanaged.passRetained(LoopJob(body)).toOpaque()
        g_source_set_callback(source, { userData in
            Unmanaged<LoopJob>.fromOpaque(userData!).takeUnretainedValue().run()
            return 0  // G_SOURCE_REMOVE
        }, job, { userData in Unmanaged<LoopJob>.fromOpaque(userData!).release() })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Ends the loop; the teardown runs on the loop thread. Waits until it has. Queued on the
    /// loop, so a quit right after ``start(name:setUp:tearDown:)`` is never lost.
    func quit() {
        guard running.withLock({ state in defer { state = false }; return state }) else { return }
        let job = Unmanaged.passRetained(LoopJob { [self] in stopping = true }).toOpaque()
        g_main_context_invoke_full(context, 0, { userData in
            Unmanaged<LoopJob>.fromOpaque(userData!).takeUnretainedValue().run()
            return 0  // G_SOURCE_REMOVE
        }, job, { userData in Unmanaged<LoopJob>.fromOpaque(userData!).release() })
        finished.wait()
    }
}

/// Work queued on a main loop, type-erased so that GLib's C callback can run it.
private final class LoopJob {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
