import CofferBase
import CofferProcess

/// A pinentry conversation under way (``PinentryPrompter``): setting commands, whose reply
/// must be `OK`, and questions, answered yes or no.
struct PinentrySession {
    var client: AssuanClient
    let conversation: ChildConversation
    let deadline: ContinuousClock.Instant

    /// Reads the greeting.
    mutating func greet() throws(PinentryFailure) {
        do throws(AssuanFailure) {
            try client.greeting()
        } catch {
            throw failure(error)
        }
    }

    /// Sends a command that must succeed.
    mutating func command(_ verb: String, _ argument: String) throws(PinentryFailure) {
        if case .failure(let error) = try transact(verb, argument) { throw .refused(command: verb, error) }
    }

    /// Asks `verb` (`CONFIRM`, `GETPIN`) with the time left as pinentry's own limit: `true` for
    /// `OK` (the answer's data in ``client``), `false` for the person's no (cancelled, not
    /// confirmed, or no answer in time).
    mutating func ask(_ verb: String) throws(PinentryFailure) -> Bool {
        let left = deadline - .now - PinentryPrompter.grace
        try command("SETTIMEOUT", String(max(left.clampedMilliseconds / 1000, 1)))
        switch try transact(verb) {
        case .success: return true
        case .failure(let error) where error.isRefusal: return false
        case .failure(let error): throw .refused(command: verb, error)
        }
    }

    /// Says goodbye; whatever the pinentry answers, the conversation is over.
    mutating func bye() {
        _ = try? client.transact("BYE")
    }

    private mutating func transact(_ verb: String, _ argument: String? = nil) throws(PinentryFailure) -> Result<String, AssuanError> {
        do throws(AssuanFailure) {
            return try client.transact(verb, argument)
        } catch {
            throw failure(error)
        }
    }

    /// What a conversation failure means: the pinentry is ended here, and its exit status and
    /// standard error tell what happened.
    private func failure(_ failure: AssuanFailure) -> PinentryFailure {
        let (termination, stderr) = conversation.end(within: .seconds(1))
        switch failure {
        case .timedOut, .cancelled: return .timedOut
        case .closed: return .ended(termination, stderr: stderr)
        case .protocolError(let error): return .protocolError(error, stderr: stderr)
        }
    }
}
