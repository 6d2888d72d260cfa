import Coffer
import Glibc

/// One client connection, as the connection loop sees it. Only the loop's thread uses it.
final class AgentConnection {
    enum State {
        /// The request is still arriving: the connection is idle in the cap's sense, and the
        /// first to be closed when a new one needs its slot.
        case reading
        /// A worker has the request.
        case working
        /// The reply is going out, and must be read by `deadline`.
        case writing(OutgoingFrame, deadline: ContinuousClock.Instant)
    }

    /// In the order of acceptance: the lowest is the oldest.
    let id: UInt64
    let descriptor: Int32
    let acceptedAt: ContinuousClock.Instant
    /// The process that connected, pinned at the accept; `nil` when the kernel named none.
    let peer: PeerProcess?
    /// When the last byte of the request came (or the connection was accepted).
    var lastHeard: ContinuousClock.Instant
    var state = State.reading
    let request = IncomingFrame()

    init(id: UInt64, descriptor: Int32, peer: PeerProcess?, at now: ContinuousClock.Instant) {
        self.id = id
        self.descriptor = descriptor
        self.peer = peer
        acceptedAt = now
        lastHeard = now
    }

    deinit {
        close(descriptor)
    }

    var isIdle: Bool {
        if case .reading = state { true } else { false }
    }
}
