import CofferBase
import Coffer

/// Runs an app's handler methods one at a time, in the order Coffer issued them, on a task of
/// their own: never on the caller's task, never on Coffer's actor, never under a lock.
final class SerialCallbacks: Sendable {
    private struct State {
        var queue: [@Sendable () -> Void] = []
        var draining = false
    }

    private let state = Guarded(State())

    /// Queues `callback` behind the ones already queued.
    func enqueue(_ callback: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.queue.append(callback)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if start { Task.detached { self.drain() } }
    }

    private func drain() {
        while let next = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.queue.isEmpty else {
                state.draining = false
                return nil
            }
            return state.queue.removeFirst()
        }) {
            next()
        }
    }
}
