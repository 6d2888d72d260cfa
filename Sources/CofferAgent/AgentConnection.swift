import Coffer
import CofferProcess
import Glibc

/// One client connection, as the connection loop sees it. Only the loop's thread uses it.
final class AgentConnection {
    enum State {
        /// The request is still arriving: the connection is idle in the cap's sense, and the
        /// first to be closed when a new one needs its slot.
        case reading
        /// A worker has the request.
        case working
        /// The reply is going out, and must be read by `deadline`; then the connection closes,
        /// or waits for the next request when `keepOpen`.
        case writing(OutgoingFrame, deadline: ContinuousClock.Instant, keepOpen: Bool)
        /// A kept connection (`identify`) between requests: idle in the cap's sense, closed
        /// quietly after ``AgentServerLimits/keepAliveTimeout`` with no request.
        case waiting
    }

    /// In the order of acceptance: the lowest is the oldest.
    let id: UInt64
    let descriptor: Int32
    let acceptedAt: ContinuousClock.Instant
    /// The process that connected, pinned at the accept, and the caller it is worked out to be
    /// at the first request.
    let caller: ConnectionCaller
    /// Ends a prompt running for this connection's request: its client hung up.
    let cancellation = PrompterCommand.Run()
    /// The client asked to keep the connection for further requests (`identify`).
    var keepsOpen = false
    /// The client hung up while its request was being served.
    var hungUp = false
    /// When the request under way began: the accept, or its first byte on a kept connection.
    var requestStartedAt: ContinuousClock.Instant
    /// When the last byte of the request came (or the connection was accepted, or its last reply sent).
    var lastHeard: ContinuousClock.Instant
    var state = State.reading
    /// The request arriving; a new frame for each request of a kept connection.
    var request = IncomingFrame()

    convenience init(id: UInt64, descriptor: Int32, peer: PeerProcess?, at now: ContinuousClock.Instant) {
        self.init(id: id, descriptor: descriptor, caller: ConnectionCaller(peer: peer), at: now)
    }

    /// A connection whose caller is known already: a kept connection back from its thread.
    init(id: UInt64, descriptor: Int32, caller: ConnectionCaller, at now: ContinuousClock.Instant) {
        self.id = id
        self.descriptor = descriptor
        self.caller = caller
        acceptedAt = now
        requestStartedAt = now
        lastHeard = now
    }

    deinit {
        close(descriptor)
    }

    var isIdle: Bool {
        switch state {
        case .reading, .waiting: true
        case .working, .writing: false
        }
    }
}
