/// Why the provider could not start serving.
package enum ProviderStartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No session bus to serve on.
    case noSessionBus(String)
    /// The session bus is not the user's own: another user's socket or daemon, or an address
    /// that starts a program or that every local user can reach (``OwnBusAddress``).
    case notOwnBus(String)
    /// The bus refused a call the provider needs (registering objects, requesting the name).
    case busRefused(String)
    /// Another process owns `org.freedesktop.secrets` and keeps it: the message says which, and
    /// how to take it over.
    case nameTaken(String)

    package var description: String {
        switch self {
        case .noSessionBus(let reason), .notOwnBus(let reason), .busRefused(let reason), .nameTaken(let reason): reason
        }
    }
}
