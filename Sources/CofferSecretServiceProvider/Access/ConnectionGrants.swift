import CofferAgent

/// The items a connection may read because the person answered `once` to its `Unlock`
/// (docs/secret-service.md, "Asking the person"): for that connection (its unique name) alone,
/// until it leaves the bus, and only while the process that connected still runs, never for a
/// later process given its PID. Lives on the main-loop thread.
struct ConnectionGrants {
    /// An item, by its collection and row key (a change of its names gives it a new row, and
    /// the grant lapses).
    struct Item: Hashable {
        let collection: String
        let rowKey: [UInt8]
    }

    /// The process a grant was given to: its PID and start time; `nil` for a caller that could
    /// not be told.
    private struct Process: Equatable {
        let pid: Int32
        let startTime: UInt64

        init?(_ caller: Caller?) {
            guard let caller else { return nil }
            (pid, startTime) = (caller.pid, caller.startTime)
        }
    }

    private var grants: [String: (process: Process?, items: Set<Item>)] = [:]

    /// Notes that `connection`, run by `caller`, may read `items`.
    mutating func add(_ items: [Item], for connection: String, caller: Caller?) {
        let process = Process(caller)
        if grants[connection]?.process != process { grants[connection] = (process, []) }
        grants[connection, default: (process, [])].items.formUnion(items)
    }

    /// Whether `connection`, run by `caller` now, was let read `item`.
    func allows(_ item: Item, for connection: String, caller: Caller?) -> Bool {
        guard let granted = grants[connection], granted.process == Process(caller) else { return false }
        return granted.items.contains(item)
    }

    /// Forgets a connection that left the bus.
    mutating func removeAll(of connection: String) {
        grants[connection] = nil
    }
}
