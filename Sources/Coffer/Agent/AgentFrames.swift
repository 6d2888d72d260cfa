import CofferAgentWire
import CofferBase
import Glibc

/// A request frame arriving in pieces on a non-blocking socket.
///
/// The length prefix is checked before anything is allocated for the body, and the body's
/// buffer then grows with the bytes that really arrive, so a prefix that announces 4 MiB costs
/// nothing until they come. A request may carry a passphrase: every buffer is zeroed when it is
/// replaced or done with.
package final class IncomingFrame {
    package enum Progress: Equatable {
        /// More bytes are to come.
        case incomplete
        case complete
        /// The peer closed the connection (or it failed) before the frame was whole.
        case closed
        /// The length prefix is outside the protocol's limits.
        case refused(String)
    }

    private static let firstBodyBytes = 16 << 10
    private var prefix = [UInt8](repeating: 0, count: 4)
    private var prefixCount = 0
    private var length = 0
    private var body: [UInt8] = []
    private var bodyCount = 0

    package init() {}

    deinit { wipe() }

    /// Reads what `descriptor` holds now, never past the end of the frame. `received` says whether
    /// any byte came.
    package func read(from descriptor: Int32) -> (progress: Progress, received: Bool) {
        var received = false
        while true {
            let count: Int
            if prefixCount < 4 {
                let offset = prefixCount
                count = prefix.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, $0.count - offset, 0) }
            } else {
                if bodyCount == length { return (.complete, received) }
                if bodyCount == body.count { grow() }
                let offset = bodyCount
                count = body.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, $0.count - offset, 0) }
            }
            if count < 0 {
                if errno == EINTR { continue }
                return (errno == EAGAIN || errno == EWOULDBLOCK ? .incomplete : .closed, received)
            }
            guard count > 0 else { return (.closed, received) }
            received = true
            guard prefixCount == 4 else {
                prefixCount += count
                if prefixCount == 4, let refusal = takeLength() { return (.refused(refusal), true) }
                continue
            }
            bodyCount += count
        }
    }

    /// The frame's message once it is complete; `nil` when its body is malformed.
    package func message() -> AgentMessage? {
        AgentMessage(body: body)
    }

    /// Zeroes every byte received.
    package func wipe() {
        SecretMemory.zero(&body)
    }

    /// Reads the length prefix; a refusal when the protocol does not allow it.
    private func takeLength() -> String? {
        let announced = Int(readUInt32(prefix, at: 0))
        guard announced >= 2, announced <= AgentMessage.maxBodyBytes else {
            return "a frame of \(announced) bytes; the protocol allows 2 to \(AgentMessage.maxBodyBytes)"
        }
        length = announced
        body = [UInt8](repeating: 0, count: min(announced, Self.firstBodyBytes))
        return nil
    }

    private func grow() {
        var larger = [UInt8](repeating: 0, count: min(length, body.count * 2))
        let filled = bodyCount
        body.withUnsafeBytes { old in larger.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[..<filled])) } }
        wipe()
        body = larger
    }
}

/// A reply frame going out on a non-blocking socket, as far as the socket takes it each time.
/// Zeroed when done with: a reply may carry a secret.
///
/// A worker makes it and hands it to the connection loop (``AgentLoopWakeup``); one thread at a
/// time uses it.
package final class OutgoingFrame: @unchecked Sendable {
    package enum Progress {
        case sent
        case pending
        case failed
    }

    private var bytes: [UInt8]
    private var offset = 0

    package init(_ message: AgentMessage) {
        bytes = message.frame
    }

    deinit {
        SecretMemory.zero(&bytes)
    }

    /// Writes what the socket takes now.
    package func write(to descriptor: Int32) -> Progress {
        while offset < bytes.count {
            let start = offset
            let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + start, $0.count - start, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .pending : .failed
            }
            offset += written
        }
        return .sent
    }
}
