import CofferBase
import Foundation
import XCTest

/// ``Guarded/withLock(waitingAtMost:_:)``: a waiter gives up when its time runs out while another
/// thread holds the lock, and runs its body once the lock is free.
final class GuardedTests: XCTestCase {
    func testATimedWaitEndsWhenItsTimeRunsOutAndRunsOnceTheLockIsFree() {
        let guarded = Guarded(0)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            guarded.withLock { _ in
                holding.signal()
                release.wait()
            }
        }
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        let started = ContinuousClock.now
        XCTAssertNil(guarded.withLock(waitingAtMost: .milliseconds(100)) { $0 += 1 }, "the lock was held throughout")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(100))
        release.signal()

        XCTAssertNotNil(guarded.withLock(waitingAtMost: .seconds(5)) { $0 += 1 }, "the lock, once free, is taken")
        XCTAssertNotNil(guarded.withLock(waitingAtMost: .seconds(-1)) { $0 += 1 }, "a negative time is no wait, and a free lock is taken")
        XCTAssertEqual(guarded.withLock { $0 }, 2, "only the bodies that had the lock ran")
    }
}
