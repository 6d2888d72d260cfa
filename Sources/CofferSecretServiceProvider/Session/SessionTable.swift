/// The open sessions, by path, each owned by the connection that opened it. A connection may
/// hold at most ``perConnection`` sessions and all of them together ``total``; past that,
/// `OpenSession` is refused, so no client can grow the provider's memory without bound.
struct SessionTable {
    static let perConnection = 32
    static let total = 4096
    static let pathPrefix = ObjectPaths.service + "/session/"

    private var sessions: [String: TransferSession] = [:]
    private var counter = 0

    /// Opens a session for `owner`.
    mutating func open(algorithm: String, input: Variant, owner: String) throws(DBusError) -> (TransferSession, Variant) {
        guard sessions.count < Self.total else { throw .limitsExceeded("too many open sessions") }
        guard sessions.values.count(where: { $0.owner == owner }) < Self.perConnection else {
            throw .limitsExceeded("this connection has \(Self.perConnection) sessions open; close some")
        }
        counter += 1
        let opened = try TransferSession.open(algorithm: algorithm, input: input, path: Self.pathPrefix + "s\(counter)", owner: owner)
        sessions[opened.0.path] = opened.0
        return opened
    }

    /// The session at `path` for `caller`: `NoSession` when there is none, or it is another
    /// connection's.
    func session(at path: String, for caller: String) throws(DBusError) -> TransferSession {
        guard let session = sessions[path], session.owner == caller else { throw .noSession() }
        return session
    }

    func exists(_ path: String) -> Bool { sessions[path] != nil }

    mutating func close(_ path: String, by caller: String) throws(DBusError) {
        _ = try session(at: path, for: caller)
        sessions[path] = nil
    }

    /// Closes every session of a connection that left the bus.
    mutating func closeAll(of owner: String) {
        sessions = sessions.filter { $0.value.owner != owner }
    }

    var count: Int { sessions.count }
}
