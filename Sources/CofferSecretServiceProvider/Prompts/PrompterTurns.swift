import CofferBase

/// One prompter at a time: prompts wait their turn in the order `Prompt` was called, so the
/// person never faces two passphrase dialogs at once, and a prompt whose collections another
/// prompt unlocked meanwhile completes without asking (docs/secret-service.md, "Unlocking").
///
/// A turn is a job that calls `done` when it ends, from any thread; the next job starts then.
final class PrompterTurns: Sendable {
    typealias Job = @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    private struct State {
        var busy = false
        var waiting: [Job] = []
    }

    private let state = Guarded(State())

    /// Runs `job` now if no turn is under way, else after the ones queued before it.
    func enqueue(_ job: @escaping Job) {
        let startNow = state.withLock { state in
            if state.busy {
                state.waiting.append(job)
                return false
            }
            state.busy = true
            return true
        }
        if startNow { run(job) }
    }

    private func run(_ job: Job) {
        job { [self] in
            let next = state.withLock { state -> Job? in
                guard !state.waiting.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            if let next { run(next) }
        }
    }
}
