import Foundation
import Synchronization

/// A clock the tests move by hand; it starts at the real time.
public final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    private let start = Date()

    public init() {}

    public var now: Date { start.addingTimeInterval(offset.withLock { $0 }) }

    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
