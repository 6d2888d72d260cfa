import CofferBase
import Foundation
import XCTest

/// ``TimedLock``: a waiter gives up when its time runs out while another thread holds the lock,
/// and takes it once it is free.
final class TimedLockTests: XCTestCase {
    func testAWaitEndsWhenItsTimeRunsOutAndSucceedsOnceTheLockIsFree() {
        let lock = TimedLock()
        XCTAssertTrue(lock.lock(waitingAtMost: .zero), "a free lock is taken without waiting")
        let started = ContinuousClock.now
        let waited = DispatchGroup()
        let outcome = Outcome()
        DispatchQueue.global().async(group: waited) {
            outcome.taken = lock.lock(waitingAtMost: .milliseconds(100))
            outcome.elapsed = ContinuousClock.now - started
        }
        XCTAssertEqual(waited.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(outcome.taken, false, "the lock was held throughout")
        XCTAssertGreaterThanOrEqual(outcome.elapsed, .milliseconds(100))
        lock.unlock()

        DispatchQueue.global().async(group: waited) {
            outcome.taken = lock.lock(waitingAtMost: .seconds(5))
            if outcome.taken == true { lock.unlock() }
        }
        XCTAssertEqual(waited.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(outcome.taken, true, "a free lock is taken by another thread")
        XCTAssertTrue(lock.lock(waitingAtMost: .seconds(-1)), "a negative time is no wait, and the free lock is taken")
        lock.unlock()
    }

    /// Written by one thread and read by the test after `DispatchGroup.wait`, which orders them.
    private final class Outcome: @unchecked Sendable {
        var taken: Bool?
        var elapsed: Duration = .zero
    }
}
