import CofferBase

/// Who is at the other end of one connection to the agent's socket: the peer pinned at the
/// accept, worked out into a ``Caller`` at the connection's first request and remembered for its
/// later ones. So a client that keeps its connection (`identify`) is known by what it was at its
/// first request, even once it has made itself not dumpable, which hides its executable.
final class ConnectionCaller: Sendable {
    private enum Resolution {
        case pending
        case resolved(Caller?)
    }

    private let peer: PeerProcess?
    private let resolution = Guarded(Resolution.pending)

    init(peer: PeerProcess?) {
        self.peer = peer
    }

    /// Whether ``caller(using:)`` would answer without hashing a file: the caller is worked out
    /// already, or `resolver` can work it out quickly (``CallerResolver/resolvesQuickly(_:)``).
    func isKnownQuickly(using resolver: CallerResolver) -> Bool {
        let pending = resolution.withLock { resolution in
            if case .pending = resolution { return true }
            return false
        }
        guard pending, let peer else { return true }
        return resolver.resolvesQuickly(peer)
    }

    /// The caller: worked out by `resolver` at the first call, remembered after. `nil` when the
    /// peer could not be told, and once the process that connected has ended (a child that
    /// inherited the connection is not taken for it).
    func caller(using resolver: CallerResolver) -> Caller? {
        let caller = resolution.withLock { resolution -> Caller? in
            if case .resolved(let caller) = resolution { return caller }
            let caller = peer.flatMap { try? resolver.resolve($0) }
            resolution = .resolved(caller)
            return caller
        }
        guard let caller, caller.isAlive else { return nil }
        return caller
    }
}
