import Foundation
import Synchronization

/// The clients that registered with the MobileFirst runtime or the MCA authorization server,
/// with their secrets and their security checks' states.
final class RegisteredClients: Sendable {
    private struct Client {
        let secret: String
        var checks: [String: CheckState] = [:]
    }

    private let clients = Mutex<[String: Client]>([:])

    /// Registers a new client and returns its id and secret.
    func register() -> (id: String, secret: String) {
        let id = RandomToken.make(bytes: 16), secret = RandomToken.make(bytes: 32)
        clients.withLock { $0[id] = Client(secret: secret) }
        return (id, secret)
    }

    /// Whether `id` is a registered client.
    func contains(_ id: String) -> Bool {
        clients.withLock { $0[id] != nil }
    }

    /// The secret of client `id`, if it is registered.
    func secret(of id: String) -> String? {
        clients.withLock { $0[id]?.secret }
    }

    /// Runs `body` on the check states of client `id`; `nil` when the client is unknown.
    func withChecks<T>(of id: String, _ body: (inout [String: CheckState]) -> T) -> T? {
        clients.withLock { clients in
            guard clients[id] != nil else { return nil }
            return body(&clients[id]!.checks)
        }
    }
}
