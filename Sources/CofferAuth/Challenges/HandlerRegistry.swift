import CofferBase
import Coffer

/// The handlers and realm delegates an app registered, by security-check or realm name.
final class HandlerRegistry: Sendable {
    private let responders = Guarded<[String: any ChallengeResponder]>([:])

    /// Registers `responder` for its name, replacing any earlier one.
    func register(_ responder: any ChallengeResponder) {
        responders.withLock { $0[responder.name] = responder }
    }

    /// The responder for `name`, if one is registered.
    func responder(for name: String) -> (any ChallengeResponder)? {
        responders.withLock { $0[name] }
    }
}
