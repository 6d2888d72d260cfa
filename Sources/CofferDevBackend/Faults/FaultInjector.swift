import CofferBase
import Synchronization

/// The faults armed on each endpoint. Each one is used for a number of requests, then disarms.
public final class FaultInjector: Sendable {
    private struct Armed {
        var fault: Fault
        var remaining: Int
    }

    private let armed = Guarded<[FaultEndpoint: Armed]>([:])
    private let released = Atomic<Bool>(false)

    init() {}

    /// Answers the next `times` requests to `endpoint` with `fault` (`Int.max`: until disarmed).
    public func inject(_ fault: Fault, on endpoint: FaultEndpoint, times: Int = 1) {
        armed.withLock { $0[endpoint] = Armed(fault: fault, remaining: times) }
    }

    /// Disarms every fault.
    public func disarmAll() {
        armed.withLock { $0.removeAll() }
    }

    /// The fault for this request to `endpoint`, if one is armed; uses it up.
    func take(for endpoint: FaultEndpoint) -> Fault? {
        armed.withLock { armed in
            guard var entry = armed[endpoint] else { return nil }
            entry.remaining -= 1
            armed[endpoint] = entry.remaining > 0 ? entry : nil
            return entry.fault
        }
    }

    /// Ends every hang, so the server can stop.
    func releaseHangs() {
        released.store(true, ordering: .releasing)
    }

    /// Waits until the hangs are released, `limit` passes, or the task is cancelled.
    func hang(upTo limit: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while !released.load(ordering: .acquiring), clock.now < deadline {
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return }
        }
    }
}
