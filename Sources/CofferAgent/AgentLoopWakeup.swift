import CofferAgentWire
import CofferBase
import Coffer
import Glibc

/// How the workers, the kept connections' threads and ``AgentServer/stop()`` reach the connection
/// loop while it sleeps in `poll`: replies waiting to be written, connections handed back, a stop
/// request, and a pipe whose read end the loop polls, so any of them wakes it at once.
final class AgentLoopWakeup: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    private let replies = Guarded<[(connection: UInt64, frame: OutgoingFrame)]>([])
    private let returning = Guarded<[KeptConnectionThreads.Returning]>([])
    private let stopping = Guarded(false)

    init() throws(CofferError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .storageUnavailable(reason: "pipe: \(AgentSocket.describe(errno))") }
        for end in ends { _ = AgentSocket.makeNonBlocking(end) }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// What the loop polls.
    var descriptor: Int32 { readEnd }

    /// Hands the loop the reply frame for `connection`, after writing what `socket` (a duplicate
    /// of the connection's, or `nil`) takes now. The write and the hand-over are one step for
    /// the loop: once the client has a reply, ``takeReplies()`` returns its frame, so a loop that
    /// takes the replies before it counts its connections sees that one answered.
    func post(_ frame: OutgoingFrame, for connection: UInt64, sendingFirstOn socket: Int32? = nil) {
        replies.withLock { replies in
            if let socket { _ = frame.write(to: socket) }
            replies.append((connection, frame))
        }
        wake()
    }

    /// The replies posted since the last call, in order.
    func takeReplies() -> [(connection: UInt64, frame: OutgoingFrame)] {
        replies.withLock { replies in
            defer { replies = [] }
            return replies
        }
    }

    /// Hands the loop a kept connection back from its thread, with a request that must wait
    /// (``KeptConnectionThreads``).
    func handBack(_ connection: KeptConnectionThreads.Returning) {
        returning.withLock { $0.append(connection) }
        wake()
    }

    /// The connections handed back since the last call, in order.
    func takeReturning() -> [KeptConnectionThreads.Returning] {
        returning.withLock { returning in
            defer { returning = [] }
            return returning
        }
    }

    func requestStop() {
        stopping.withLock { $0 = true }
        wake()
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    /// Empties the pipe after a wake.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func wake() {
        // A full pipe is awake already.
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}
