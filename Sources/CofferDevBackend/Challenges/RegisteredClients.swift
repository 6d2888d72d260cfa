import CofferBase
import CryptoExtras
import Foundation

/// The clients that registered with the MobileFirst runtime or the MCA authorization server:
/// each one's public key (what its signatures are checked with), the data it registered, and
/// its security checks' states. No client has a secret.
final class RegisteredClients: Sendable {
    /// Which server a client registered with.
    enum Server: Sendable {
        case mobileFirst, clientAccess
    }

    private struct Client {
        let server: Server
        let key: _RSA.Signing.PublicKey
        var data: JSON
        var checks: [String: CheckState] = [:]
    }

    private let clients = Guarded<[String: Client]>([:])

    /// Registers a new client of `server` with its public key and data; returns its id.
    func register(_ server: Server, key: _RSA.Signing.PublicKey, data: JSON) -> String {
        let id = UUID().uuidString.lowercased()
        clients.withLock { $0[id] = Client(server: server, key: key, data: data) }
        return id
    }

    /// Whether `id` is a client of `server`.
    func contains(_ id: String, of server: Server) -> Bool {
        clients.withLock { $0[id].map { $0.server == server } ?? false }
    }

    /// The public key of client `id` of `server`, if it is registered.
    func key(of id: String, of server: Server) -> _RSA.Signing.PublicKey? {
        clients.withLock { $0[id].flatMap { $0.server == server ? $0.key : nil } }
    }

    /// The data client `id` registered with.
    func data(of id: String) -> JSON? {
        clients.withLock { $0[id]?.data }
    }

    /// Replaces the data of client `id`. Returns whether it is registered.
    @discardableResult
    func update(_ id: String, data: JSON) -> Bool {
        clients.withLock { clients in
            guard clients[id] != nil else { return false }
            clients[id]!.data = data
            return true
        }
    }

    /// Runs `body` on the check states of client `id`; `nil` when the client is unknown.
    func withChecks<T>(of id: String, _ body: (inout [String: CheckState]) -> T) -> T? {
        clients.withLock { clients in
            guard clients[id] != nil else { return nil }
            return body(&clients[id]!.checks)
        }
    }

    /// Forgets every client, as a server that lost its registrations would.
    func removeAll() {
        clients.withLock { $0.removeAll() }
    }
}
