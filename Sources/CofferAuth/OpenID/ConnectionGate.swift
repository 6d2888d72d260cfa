import CofferBase
import Coffer
import NIOCore

/// The connections a login listener keeps open, at most `capacity` at once.
///
/// A connection is idle until it sends a request head. A new connection beyond the capacity
/// closes the oldest idle one, so connections that send nothing cannot keep the browser's
/// redirect out; only when every slot holds a request in progress is the new one refused.
final class ConnectionGate: Sendable {
    private struct Entry {
        let channel: any Channel
        var active: Bool
    }

    let capacity: Int
    /// Open connections, oldest first.
    private let entries = Guarded<[Entry]>([])

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Admits `channel`, closing the oldest idle connection to make room; `false` when every
    /// slot is busy with a request.
    func admit(_ channel: any Channel) -> Bool {
        let evicted: (any Channel)?? = entries.withLock { entries in
            var evicted: (any Channel)?
            if entries.count >= capacity {
                guard let oldestIdle = entries.firstIndex(where: { !$0.active }) else { return .none }
                evicted = entries.remove(at: oldestIdle).channel
            }
            entries.append(Entry(channel: channel, active: false))
            return .some(evicted)
        }
        guard let evicted else { return false }
        evicted?.close(promise: nil)
        return true
    }

    /// Marks `channel` as carrying a request: it is no longer evicted for a newcomer.
    func markActive(_ channel: any Channel) {
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.channel === channel }) { entries[index].active = true }
        }
    }

    /// Forgets `channel` once it has closed.
    func remove(_ channel: any Channel) {
        entries.withLock { entries in entries.removeAll { $0.channel === channel } }
    }

    /// How many connections are open.
    var count: Int { entries.withLock { $0.count } }
}
