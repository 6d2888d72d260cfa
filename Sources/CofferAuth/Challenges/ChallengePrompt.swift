import CofferBase
import Coffer

/// The challenge a handler or realm delegate is being shown, if any, and whether its security
/// check is challenged: the state both kinds of handler share.
final class ChallengePrompt: Sendable {
    private struct State {
        var slot: AnswerSlot?
        var isChallenged = false
    }

    private let state = Guarded(State())
    /// The handler's methods, one at a time and in order.
    let callbacks = SerialCallbacks()

    /// Shows a challenge (`show` runs on the handler's callback task with the slot its answer
    /// goes to) and waits for the outcome, at most `timeout`.
    func present(timeout: Duration, show: @escaping @Sendable (AnswerSlot) -> Void) async -> ChallengeAnswer {
        let slot = AnswerSlot()
        let replaced = state.withLock { state -> AnswerSlot? in
            defer {
                state.slot = slot
                state.isChallenged = true
            }
            return state.slot
        }
        replaced?.resolve(.abandoned)
        callbacks.enqueue { show(slot) }
        let outcome = await slot.wait(timeout: timeout)
        state.withLock { state in
            if state.slot === slot { state.slot = nil }
        }
        return outcome
    }

    /// Gives `outcome` to the challenge being shown. Returns `false` when none is waiting.
    @discardableResult
    func deliver(_ outcome: ChallengeAnswer) -> Bool {
        guard let slot = state.withLock({ state -> AnswerSlot? in
            defer { state.slot = nil }
            return state.slot
        }) else { return false }
        return slot.resolve(outcome)
    }

    /// Whether a challenge is being shown and still waits for its answer.
    var isWaitingForAnswer: Bool { state.withLock { $0.slot != nil } }

    /// From the first challenge until the security check succeeds, fails or is cancelled.
    var isChallenged: Bool { state.withLock { $0.isChallenged } }

    /// The security check's challenge is over.
    func end() {
        state.withLock { $0.isChallenged = false }
    }
}
