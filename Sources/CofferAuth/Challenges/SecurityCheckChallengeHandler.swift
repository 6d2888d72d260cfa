import Coffer
import Foundation

/// Answers the challenges of one MobileFirst security check, as `WLChallengeHandler` does in
/// the MobileFirst 8 SDK. Subclass it, override ``handleChallenge(_:)`` (and optionally
/// ``handleSuccess(_:)`` and ``handleFailure(_:)``), and register one instance per check with
/// ``ChallengeClient/registerChallengeHandler(_:)``, once for the app's lifetime.
///
/// ```swift
/// final class PinCodeChallengeHandler: SecurityCheckChallengeHandler, @unchecked Sendable {
///     override func handleChallenge(_ challenge: JSONValue) {
///         let message = challenge["errorMsg"]?.stringValue ?? "This data requires a PIN code."
///         let remaining = challenge["remainingAttempts"]?.intValue ?? 0
///         askForPIN(message, remaining) { pin in
///             if let pin { self.submitChallengeAnswer(["pin": .string(pin)]) } else { self.cancel() }
///         }
///     }
/// }
/// client.registerChallengeHandler(PinCodeChallengeHandler(securityCheck: "PinCodeAttempts"))
/// ```
///
/// ## Threading
/// Coffer calls ``handleChallenge(_:)``, ``handleSuccess(_:)`` and ``handleFailure(_:)`` one at
/// a time, in order, on a task of its own: never on the caller's task and never while holding a
/// lock. Return promptly; answer later, from any thread or task, with
/// ``submitChallengeAnswer(_:)`` or ``cancel()``. A subclass that keeps mutable state must
/// protect it itself (a `Mutex`, or hop to the main actor), which is why it declares
/// `@unchecked Sendable`.
///
/// Every request waiting for the answer ends: after the check succeeds, with
/// ``AuthError/challengeCancelled(check:)`` after ``cancel()``, with
/// ``AuthError/challengeFailed(check:payload:)`` or ``AuthError/blocked(check:retryAfter:)``
/// after a failure, or with ``AuthError/challengeTimeout(check:)`` when no answer comes within
/// ``ClientConfiguration/loginTimeout``.
open class SecurityCheckChallengeHandler: @unchecked Sendable, ChallengeResponder {
    /// The name of the security check this handler answers for.
    public let securityCheck: String
    let prompt = ChallengePrompt()

    /// A handler for the security check `securityCheck`.
    public init(securityCheck: String) {
        self.securityCheck = securityCheck
    }

    // MARK: What the app overrides

    /// A challenge arrived: prompt the user, then call ``submitChallengeAnswer(_:)`` or
    /// ``cancel()``. Wrong answers bring another challenge. The default cancels at once.
    open func handleChallenge(_ challenge: JSONValue) {
        cancel()
    }

    /// The security check succeeded. For checks that authenticate a user, `success["user"]`
    /// describes them (see ``AuthenticatedUser``). The default does nothing.
    open func handleSuccess(_ success: JSONValue) {}

    /// The security check failed, for example after too many attempts
    /// (`failure["failure"]` says why). The default does nothing.
    open func handleFailure(_ failure: JSONValue) {}

    // MARK: What the app calls

    /// Sends `answer` for the challenge being shown, for example `["pin": "1234"]`. Returns
    /// `false`, sending nothing, when no challenge is waiting for an answer: use
    /// ``AuthorizationManager/login(securityCheck:credentials:)`` to log in without one.
    @discardableResult
    public final func submitChallengeAnswer(_ answer: JSONValue) -> Bool {
        prompt.deliver(.answer(answer))
    }

    /// Drops the challenge: every request waiting for it fails with
    /// ``AuthError/challengeCancelled(check:)``. Returns `false` when no challenge is waiting.
    @discardableResult
    public final func cancel() -> Bool {
        prompt.deliver(.cancelled)
    }

    /// Whether the security check is challenged: from the first challenge until it succeeds,
    /// fails or is cancelled. Use it to choose between ``submitChallengeAnswer(_:)`` and a
    /// preemptive ``AuthorizationManager/login(securityCheck:credentials:)``.
    public final var isChallenged: Bool { prompt.isChallenged }

    // MARK: ChallengeResponder

    var name: String { securityCheck }

    func answer(_ challenge: JSONValue, timeout: Duration) async -> ChallengeAnswer {
        await prompt.present(timeout: timeout) { [self] _ in handleChallenge(challenge) }
    }

    func succeeded(_ success: JSONValue) {
        prompt.callbacks.enqueue { [self] in handleSuccess(success) }
    }

    func failed(_ failure: JSONValue) {
        prompt.callbacks.enqueue { [self] in handleFailure(failure) }
    }
}

extension SecurityCheckChallengeHandler: CustomStringConvertible {
    /// The check's name and state; never an answer.
    public var description: String {
        "\(type(of: self))(securityCheck: \(securityCheck), challenged: \(isChallenged))"
    }
}
