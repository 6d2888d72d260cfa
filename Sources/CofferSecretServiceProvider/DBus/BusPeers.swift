import Glibc

/// The connections on the bus and their users, so that the provider serves its own user alone:
/// every call from another user's connection is refused (``admits(_:)``), and signals go to
/// the user's own connections one by one instead of to every connection on the bus
/// (``ownConnections``).
///
/// A connection's user is asked of the bus (`GetConnectionUnixUser`) once, when it is first
/// needed, and kept for as long as the connection is on the bus: a unique name is never used
/// twice. Used on the main-loop thread only.
final class BusPeers {
    private let bus: BusConnection
    private let ownUser = geteuid()
    /// The unique names on the bus now (as far as the bus has said), with their users once known.
    private var users: [String: uid_t?] = [:]

    init(bus: BusConnection) {
        self.bus = bus
    }

    /// Notes the connections on the bus now. Call it once `NameOwnerChanged` is followed, so
    /// that no connection joins unnoticed in between.
    func noteConnectionsOnTheBus() {
        for name in bus.connectionNames() { joined(name) }
    }

    /// Whether `sender` (a unique name) is a connection of the agent's own user.
    func admits(_ sender: String) -> Bool {
        user(of: sender) == ownUser
    }

    /// Whether `sender` is a connection of the agent's own user as far as is known already,
    /// without asking the bus.
    func isKnownToBeOwn(_ sender: String) -> Bool {
        guard let known = users[sender], let known else { return false }
        return known == ownUser
    }

    /// The user's connections on the bus, the provider's own aside.
    var ownConnections: [String] {
        let me = bus.uniqueName
        return users.keys.sorted().filter { $0 != me && user(of: $0) == ownUser }
    }

    /// Notes a connection that joined the bus (`NameOwnerChanged` with no old owner).
    func joined(_ name: String) {
        if users[name] == nil { users[name] = .some(nil) }
    }

    /// Forgets a connection that left the bus.
    func left(_ name: String) {
        users[name] = nil
    }

    private func user(of name: String) -> uid_t? {
        guard name.hasPrefix(":") else { return nil }
        if let known = users[name], let known { return known }
        guard let found = bus.unixUser(of: name) else { return nil }
        users[name] = found
        return found
    }
}
