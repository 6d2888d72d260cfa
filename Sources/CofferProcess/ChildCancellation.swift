import CofferBase
import Glibc

/// Ends runs early from another thread: ``cancel()`` kills the process group of the run under
/// way (SIGKILL), and every later run that is given it ends before it starts. Once cancelled,
/// it stays cancelled.
package final class ChildCancellation: Sendable {
    private struct State {
        var cancelled = false
        var running: SpawnedChild?
    }

    private let state = Guarded(State())

    package init() {}

    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.running?.signalGroup(SIGKILL)
        }
    }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Records the run's child, unreaped, for ``cancel()``; `false` when cancelled already.
    func attach(_ child: SpawnedChild) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.running = child
            return true
        }
    }

    /// Forgets the child, before it is reaped: a later ``cancel()`` signals nothing.
    func detach() {
        state.withLock { $0.running = nil }
    }
}
