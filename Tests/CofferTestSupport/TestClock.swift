import Foundation
import Synchronization

/// A clock the tests move by hand.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// A clock at `start`: now by default; pass whole seconds where stored dates (kept in
    /// milliseconds) must compare equal.
    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
