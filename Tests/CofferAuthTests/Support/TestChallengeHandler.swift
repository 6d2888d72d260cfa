@testable import CofferAuth
import Foundation
import Synchronization
import CofferTestSupport
import XCTest

/// A security-check handler for tests. It records every call, and answers from a list (then
/// cancels), cancels at once, lets the test answer, or never answers.
final class TestChallengeHandler: SecurityCheckChallengeHandler, @unchecked Sendable {
    enum Mode: Sendable {
        /// Answers with these, in order, then cancels.
        case answers([JSONValue])
        /// Cancels every challenge.
        case cancel
        /// Leaves the answer to the test (``submitChallengeAnswer(_:)``, ``cancel()``).
        case manual
    }

    private struct Record {
        var pending: [JSONValue] = []
        var challenges: [JSONValue] = []
        var successes: [JSONValue] = []
        var failures: [JSONValue] = []
    }

    private let mode: Mode
    private let record: Mutex<Record>

    init(securityCheck: String, _ mode: Mode) {
        self.mode = mode
        if case .answers(let answers) = mode { record = Mutex(Record(pending: answers)) } else { record = Mutex(Record()) }
        super.init(securityCheck: securityCheck)
    }

    var challenges: [JSONValue] { record.withLock { $0.challenges } }
    var successes: [JSONValue] { record.withLock { $0.successes } }
    var failures: [JSONValue] { record.withLock { $0.failures } }

    override func handleChallenge(_ challenge: JSONValue) {
        let next = record.withLock { record -> JSONValue? in
            record.challenges.append(challenge)
            return record.pending.isEmpty ? nil : record.pending.removeFirst()
        }
        switch mode {
        case .answers: if let next { submitChallengeAnswer(next) } else { cancel() }
        case .cancel: cancel()
        case .manual: break
        }
    }

    override func handleSuccess(_ success: JSONValue) {
        record.withLock { $0.successes.append(success) }
    }

    override func handleFailure(_ failure: JSONValue) {
        record.withLock { $0.failures.append(failure) }
    }

    /// Waits until every callback Coffer has queued for this handler so far has run.
    func drained() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in prompt.callbacks.enqueue { done.resume() } }
    }

    /// Waits (at most 10 s) until the handler has seen `count` challenges, and returns the last.
    @discardableResult
    func challenge(_ count: Int = 1, file: StaticString = #filePath, line: UInt = #line) async -> JSONValue? {
        await eventually("\(securityCheck) got challenge \(count)", file: file, line: line) { self.challenges.count >= count }
        return challenges.dropFirst(count - 1).first
    }
}

/// A realm delegate for tests: answers from a list (then reports a failure), and records every call.
final class TestAuthenticationDelegate: AuthenticationDelegate {
    private struct Record {
        var pending: [JSONValue]
        var challenges: [JSONValue] = []
        var successes: [JSONValue] = []
        var failures: [JSONValue] = []
    }

    private let record: Mutex<Record>
    /// What the delegate reports with `submitAuthenticationFailure` when it has no answer left.
    let failureInfo: JSONValue

    init(answers: [JSONValue], failureInfo: JSONValue = ["reason": "the user cancelled"]) {
        record = Mutex(Record(pending: answers))
        self.failureInfo = failureInfo
    }

    var challenges: [JSONValue] { record.withLock { $0.challenges } }
    var successes: [JSONValue] { record.withLock { $0.successes } }
    var failures: [JSONValue] { record.withLock { $0.failures } }

    func didReceiveAuthenticationChallenge(context: AuthenticationContext, challenge: JSONValue) {
        let next = record.withLock { record -> JSONValue? in
            record.challenges.append(challenge)
            return record.pending.isEmpty ? nil : record.pending.removeFirst()
        }
        if let next { context.submitAuthenticationChallengeAnswer(next) } else { context.submitAuthenticationFailure(failureInfo) }
    }

    func didReceiveAuthenticationSuccess(context: AuthenticationContext, userInfo: JSONValue) {
        record.withLock { $0.successes.append(userInfo) }
    }

    func didReceiveAuthenticationFailure(context: AuthenticationContext, userInfo: JSONValue) {
        record.withLock { $0.failures.append(userInfo) }
    }
}
