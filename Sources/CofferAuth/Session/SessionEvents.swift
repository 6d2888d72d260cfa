import CofferBase
import Coffer
import Foundation

/// Hands every ``SessionEvent`` to every current subscriber's `AsyncStream`.
final class SessionEvents: Sendable {
    private let subscribers = Guarded<[UUID: AsyncStream<SessionEvent>.Continuation]>([:])

    /// A new stream of the events from now on. It ends when the subscriber stops iterating.
    func stream() -> AsyncStream<SessionEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func send(_ event: SessionEvent) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }
}
