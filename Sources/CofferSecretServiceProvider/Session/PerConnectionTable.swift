/// Objects that belong to the connection that made them (sessions, prompts), by path, with a
/// cap per connection and one for all connections together, so that no client can grow the
/// provider's memory without bound, nor shut the others out.
///
/// A connection at its own cap is refused. When all connections together are at theirs, a
/// connection that holds fewer objects than the connection holding the most still gets one:
/// the oldest object of the connections holding the most goes to make room. A client that opens
/// many connections to fill the table only loses its own oldest objects; a connection holding
/// as many as any other is refused instead. Every caller is the agent's own user (``BusPeers``),
/// so a cap per user would be the overall one.
struct PerConnectionTable<Value> {
    let perConnection: Int
    let total: Int
    /// What the objects are, for the refusals' messages ("sessions").
    let what: String

    private struct Entry {
        let owner: String
        let serial: Int
        let value: Value
    }

    private var entries: [String: Entry] = [:]
    private var counts: [String: Int] = [:]
    private var serial = 0

    init(perConnection: Int, total: Int, what: String) {
        self.perConnection = perConnection
        self.total = total
        self.what = what
    }

    /// Throws `LimitsExceeded` when ``add(_:at:owner:)`` would refuse `owner` now; call it
    /// before the work of making the object.
    func checkRoom(for owner: String) throws(DBusError) {
        _ = try victim(for: owner)
    }

    /// Adds `value` at `path` for `owner`, and returns the objects that went to make room
    /// (for the caller to finish); throws `LimitsExceeded` when `owner` gets none.
    mutating func add(_ value: Value, at path: String, owner: String) throws(DBusError) -> [Value] {
        var evicted: [Value] = []
        if let victim = try victim(for: owner), let gone = remove(victim) { evicted.append(gone) }
        serial += 1
        entries[path] = Entry(owner: owner, serial: serial, value: value)
        counts[owner, default: 0] += 1
        return evicted
    }

    /// The object at `path` when it is `owner`'s.
    func value(at path: String, for owner: String) -> Value? {
        guard let entry = entries[path], entry.owner == owner else { return nil }
        return entry.value
    }

    /// The object at `path`, whoever owns it.
    func value(at path: String) -> Value? { entries[path]?.value }

    func contains(_ path: String) -> Bool { entries[path] != nil }

    @discardableResult
    mutating func remove(_ path: String) -> Value? {
        guard let entry = entries.removeValue(forKey: path) else { return nil }
        counts[entry.owner, default: 1] -= 1
        if counts[entry.owner] == 0 { counts[entry.owner] = nil }
        return entry.value
    }

    /// Removes every object of a connection that left the bus, and returns them.
    mutating func removeAll(of owner: String) -> [Value] {
        let paths = entries.filter { $0.value.owner == owner }.map(\.key)
        return paths.compactMap { remove($0) }
    }

    var count: Int { entries.count }
    var paths: [String] { Array(entries.keys) }

    /// The path of the object that must go for `owner` to get one (`nil`: none needs to).
    private func victim(for owner: String) throws(DBusError) -> String? {
        let held = counts[owner, default: 0]
        guard held < perConnection else {
            throw .limitsExceeded("this connection has \(perConnection) \(what) open; close some")
        }
        guard entries.count >= total else { return nil }
        let most = counts.values.max() ?? 0
        guard most > held else { throw .limitsExceeded("too many \(what) open") }
        return entries.filter { counts[$0.value.owner] == most }.min { $0.value.serial < $1.value.serial }?.key
    }
}
