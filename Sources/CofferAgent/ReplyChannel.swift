import Coffer
import Glibc

/// How a worker answers one request: it writes the reply to the client itself, at once, on a
/// duplicate of the connection's socket (so the descriptor stays the client's even if the loop
/// closes its own), then hands the frame to the loop, which writes what the socket did not
/// take and makes the connection ready for its next request. The client's wait then ends
/// without waking the loop first.
final class ReplyChannel: Sendable {
    /// The connection's id in the loop.
    let connection: UInt64
    /// A duplicate of the connection's socket; `nil` when none could be had.
    private let descriptor: Int32?
    private let wakeup: AgentLoopWakeup

    /// A channel for the connection `connection` on the socket `socket`; without a duplicate
    /// descriptor (none left), the loop writes the whole reply, as it always could.
    init(connection: UInt64, socket: Int32, wakeup: AgentLoopWakeup) {
        self.connection = connection
        let duplicate = fcntl(socket, F_DUPFD_CLOEXEC, 0)
        descriptor = duplicate >= 0 ? duplicate : nil
        self.wakeup = wakeup
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// Sends `reply`: as much as the socket takes now, the rest through the loop.
    func send(_ reply: AgentReply) {
        wakeup.post(OutgoingFrame(reply.message), for: connection, sendingFirstOn: descriptor)
    }
}
