import CofferProcess
import Foundation
import XCTest

/// ``DetachedThread``: the body runs on a new thread carrying the name given (cut to the
/// kernel's 15 bytes), which `/proc/self/task/*/comm` shows while it runs.
final class DetachedThreadTests: XCTestCase {
    func testTheBodyRunsOnANamedThreadOfItsOwn() throws {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        let onAnotherThread = Flag()
        XCTAssertTrue(DetachedThread.start(name: "coffer test thread, long name") {
            onAnotherThread.value = pthread_equal(pthread_self(), caller) == 0
            running.signal()
            release.wait()
        })
        XCTAssertEqual(running.wait(timeout: .now() + 10), .success, "the body ran")
        defer { release.signal() }
        XCTAssertTrue(onAnotherThread.value)
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        XCTAssertTrue(names.contains("coffer test thr\n"), "\(names)")
    }

    /// Written by the thread before it signals, read after the wait, which orders them.
    private final class Flag: @unchecked Sendable {
        var value = false
    }
}
