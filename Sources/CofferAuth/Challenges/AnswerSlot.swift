import CofferBase
import Coffer

/// Where the answer to one presented challenge arrives: from the app, from any thread, at any
/// time (even before Coffer starts waiting), once. The first outcome wins; later ones are ignored.
final class AnswerSlot: Sendable {
    private struct State {
        var outcome: ChallengeAnswer?
        var waiter: CheckedContinuation<ChallengeAnswer, Never>?
    }

    private let state = Guarded(State())

    /// Settles the slot. Returns `false` when it was already settled.
    @discardableResult
    func resolve(_ outcome: ChallengeAnswer) -> Bool {
        let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<ChallengeAnswer, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return settled
    }

    /// Whether an outcome has arrived.
    var isSettled: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for the outcome: ``ChallengeAnswer/timedOut`` after `timeout`, and
    /// ``ChallengeAnswer/abandoned`` when the waiting task is cancelled.
    func wait(timeout: Duration) async -> ChallengeAnswer {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.resolve(.timedOut)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChallengeAnswer, Never>) in
                let settled = state.withLock { state -> ChallengeAnswer? in
                    if state.outcome == nil { state.waiter = continuation }
                    return state.outcome
                }
                if let settled { continuation.resume(returning: settled) }
            }
        } onCancel: {
            resolve(.abandoned)
        }
    }
}
