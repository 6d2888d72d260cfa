/// The open sessions, by path, each owned by the connection that opened it. A connection may
/// hold at most ``perConnection`` sessions and all of them together ``total``; past that,
/// `OpenSession` is refused, or makes room by closing the oldest session of the connections
/// holding the most (``PerConnectionTable``), so no client can grow the provider's memory
/// without bound nor keep the others from opening a session.
struct SessionTable {
    static let perConnection = 32
    static let total = 4096
    static let pathPrefix = ObjectPaths.service + "/session/"

    private var sessions = PerConnectionTable<TransferSession>(perConnection: perConnection, total: total, what: "sessions")
    private var counter = 0

    /// Opens a session for `owner`.
    mutating func open(algorithm: String, input: Variant, owner: String) throws(DBusError) -> (TransferSession, Variant) {
        try sessions.checkRoom(for: owner)
        counter += 1
        let opened = try TransferSession.open(algorithm: algorithm, input: input, path: Self.pathPrefix + "s\(counter)", owner: owner)
        _ = try sessions.add(opened.0, at: opened.0.path, owner: owner)
        return opened
    }

    /// The session at `path` for `caller`: `NoSession` when there is none, or it is another
    /// connection's.
    func session(at path: String, for caller: String) throws(DBusError) -> TransferSession {
        guard let session = sessions.value(at: path, for: caller) else { throw .noSession() }
        return session
    }

    func exists(_ path: String) -> Bool { sessions.contains(path) }

    mutating func close(_ path: String, by caller: String) throws(DBusError) {
        _ = try session(at: path, for: caller)
        sessions.remove(path)
    }

    /// Closes every session of a connection that left the bus.
    mutating func closeAll(of owner: String) {
        _ = sessions.removeAll(of: owner)
    }

    var count: Int { sessions.count }
}
