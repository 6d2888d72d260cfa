import CofferBase
import Glibc

/// A child this process talks with turn by turn, over its standard input and output (a
/// line protocol such as Assuan), where ``ChildCommand/run(input:output:errors:errorLimit:until:cancellation:)``
/// sends everything first.
///
/// The child starts as ``ChildCommand`` starts it (descriptors 0, 1 and 2 only, the listed
/// environment, its process group), its standard error kept up to a limit. One deadline bounds
/// the whole conversation: every ``send(_:)`` and ``receive(into:)`` fails once it passes, as
/// on ``ChildCancellation/cancel()``. ``end(within:)`` closes the child's input, gives it a
/// moment to exit, then kills its group and reaps it; a conversation dropped without it is
/// ended the same way, at once.
package final class ChildConversation {
    private let streams: ChildStreams
    private var error: ChildErrorCapture?
    private let deadline: ContinuousClock.Instant
    private let cancellation: ChildCancellation?
    private var ended = false

    /// Starts `command`; `errors` says where its standard error goes (``ChildErrorStream/captured``:
    /// up to `errorLimit` bytes, given back by ``end(within:)``).
    package init(
        _ command: ChildCommand, errors: ChildErrorStream = .captured, errorLimit: Int = ChildCommand.errorLimit,
        until deadline: ContinuousClock.Instant, cancellation: ChildCancellation? = nil
    ) throws(ChildRunFailure) {
        guard cancellation?.isCancelled != true else { throw .cancelled }
        streams = try command.start(input: true, errors: errors)
        error = streams.error.map { ChildErrorCapture(descriptor: $0, limit: errorLimit) }
        self.deadline = deadline
        self.cancellation = cancellation
        for descriptor in [streams.input, streams.output, streams.error].compactMap({ $0 }) {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        if cancellation?.attach(streams.child) == false {
            _ = end(within: .zero)
            throw .cancelled
        }
    }

    deinit {
        if !ended { _ = end(within: .zero) }
    }

    /// The child's process id.
    package var pid: pid_t { streams.child.pid }

    /// Writes all of `bytes` to the child's standard input.
    package func send(_ bytes: UnsafeRawBufferPointer) throws(ChildConversationFailure) {
        guard let input = streams.input, !ended else { throw .inputClosed }
        var sent = 0
        while sent < bytes.count {
            try checkCancellation()
            let written = Glibc.send(input, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if written > 0 {
                sent += written
            } else if errno == EAGAIN || errno == EINTR {
                try wait(for: input, events: Int16(POLLOUT))
            } else {
                throw .inputClosed
            }
        }
    }

    /// Reads what the child has written next into `buffer`, waiting until something comes:
    /// the number of bytes, or 0 when its standard output has closed (it exited, most likely).
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(ChildConversationFailure) -> Int {
        guard !buffer.isEmpty, !ended else { return 0 }
        while true {
            try checkCancellation()
            let count = read(streams.output, buffer.baseAddress!, buffer.count)
            if count > 0 { return count }
            if count < 0, errno == EAGAIN || errno == EINTR {
                try wait(for: streams.output, events: Int16(POLLIN))
                continue
            }
            try checkCancellation()
            return 0
        }
    }

    /// Ends the conversation: closes the child's standard input, waits up to `grace` (and never
    /// past the deadline) for it to exit, then kills its group (SIGKILL) and reaps it. Returns
    /// how it ended and its standard error, when captured, as text. Only the first call ends it;
    /// a later one returns `.unknown` and no text.
    package func end(within grace: Duration) -> (termination: ChildTermination, errorText: String) {
        guard !ended else { return (.unknown, "") }
        ended = true
        let child = streams.child
        if let input = streams.input { shutdown(input, Int32(SHUT_WR)) }
        let limit = min(deadline, .now + grace)
        while !child.hasEnded, ContinuousClock.now < limit {
            var ready = [pollfd(fd: error?.isOpen == true ? error?.descriptor ?? -1 : -1, events: Int16(POLLIN), revents: 0)]
            if poll(&ready, 1, 10) > 0 { error?.read() }
        }
        // The leader is not reaped yet, so its group's id still names its group.
        child.signalGroup(SIGKILL)
        while error?.isOpen == true, error?.read() == true {}
        cancellation?.detach()
        let termination = child.wait(until: nil) ?? .unknown
        streams.close()
        return (termination, String(decoding: error?.bytes ?? [], as: UTF8.self))
    }

    private func checkCancellation() throws(ChildConversationFailure) {
        if cancellation?.isCancelled == true { throw .cancelled }
    }

    /// Waits until `descriptor` is ready for `events` (or has hung up), reading the child's
    /// standard error meanwhile so that it never blocks on it.
    private func wait(for descriptor: Int32, events: Int16) throws(ChildConversationFailure) {
        while true {
            try checkCancellation()
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timedOut }
            var ready = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: error?.isOpen == true ? error?.descriptor ?? -1 : -1, events: Int16(POLLIN), revents: 0),
            ]
            let count = poll(&ready, nfds_t(ready.count), Int32(clamping: max(remaining.clampedMilliseconds, 1)))
            if count < 0, errno != EINTR { throw .timedOut }
            if ready[1].revents != 0 { error?.read() }
            if ready[0].revents != 0 { return }
        }
    }
}
