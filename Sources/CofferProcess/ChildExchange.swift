import CLinux
import CofferBase
import Glibc

/// The parent's side of a bounded run: sends the input, reads standard output into the
/// caller's buffer and standard error into text, driven by `poll` until the child exits, the
/// deadline passes or the run is cancelled.
struct ChildExchange {
    enum Ending {
        case leaderEnded
        case timedOut
        case cancelled
    }

    private let child: SpawnedChild
    private var input: (descriptor: Int32, bytes: UnsafeRawBufferPointer)?
    private let output: (descriptor: Int32, buffer: UnsafeMutableRawBufferPointer)
    private var error: ChildErrorCapture?
    /// Readable once the child has exited (`pidfd_open`, Linux 5.3); -1 where there is none,
    /// and the exit is then checked every ``exitCheckInterval`` milliseconds.
    private var exitWatch: Int32
    private static let exitCheckInterval: Int32 = 10
    private var sent = 0
    private var outputOpen = true
    private(set) var received = 0
    private(set) var outputOverflowed = false
    var errorBytes: [UInt8] { error?.bytes ?? [] }

    init(
        child: SpawnedChild, input: (descriptor: Int32, bytes: UnsafeRawBufferPointer)?,
        output: (descriptor: Int32, buffer: UnsafeMutableRawBufferPointer), error: ChildErrorCapture?
    ) {
        self.child = child
        self.input = input
        self.output = output
        self.error = error
        exitWatch = coffer_pidfd_open(child.pid)
        for descriptor in [input?.descriptor, output.descriptor, error?.descriptor].compactMap({ $0 }) {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        if let input, input.bytes.isEmpty { finishInput(input.descriptor) }
    }

    mutating func closeWatch() {
        if exitWatch >= 0 { close(exitWatch) }
        exitWatch = -1
    }

    /// Runs until the child exits (however its streams stand), `deadline`, or `cancellation`.
    mutating func run(until deadline: ContinuousClock.Instant, cancellation: ChildCancellation?) -> Ending {
        while true {
            if cancellation?.isCancelled == true { return .cancelled }
            let remaining = deadline - .now
            guard remaining > .zero else { return .timedOut }
            var descriptors = [
                pollfd(fd: input?.descriptor ?? -1, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: outputOpen ? output.descriptor : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: error?.isOpen == true ? error?.descriptor ?? -1 : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0),
            ]
            var wait = Int32(clamping: max(remaining.clampedMilliseconds, 1))
            if exitWatch < 0 { wait = min(wait, Self.exitCheckInterval) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), wait)
            if ready < 0, errno != EINTR { return .timedOut }
            if descriptors[0].revents != 0 { sendInput() }
            if descriptors[1].revents != 0 { readOutput() }
            if descriptors[2].revents != 0 { error?.read() }
            if exitWatch >= 0 ? descriptors[3].revents != 0 : child.hasEnded {
                // A cancel kills the child: its exit is then the cancel's.
                return cancellation?.isCancelled == true ? .cancelled : .leaderEnded
            }
        }
    }

    /// Reads what the streams hold now, without waiting: what the child wrote before it exited.
    mutating func drain() {
        while outputOpen, readOutput() {}
        while error?.isOpen == true, error?.read() == true {}
    }

    private mutating func sendInput() {
        guard let (descriptor, bytes) = input else { return }
        let written = send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
        if written > 0 {
            sent += written
        } else if errno != EAGAIN, errno != EINTR {
            // The child does not read (it exited, or closed its input): nothing more to send.
            sent = bytes.count
        }
        if sent == bytes.count { finishInput(descriptor) }
    }

    private mutating func finishInput(_ descriptor: Int32) {
        shutdown(descriptor, Int32(SHUT_WR))
        input = nil
    }

    /// Reads one chunk of standard output; `false` when nothing was there.
    @discardableResult
    private mutating func readOutput() -> Bool {
        let count: Int
        if received < output.buffer.count {
            count = read(output.descriptor, output.buffer.baseAddress! + received, output.buffer.count - received)
            if count > 0 { received += count }
        } else {
            var scratch = [UInt8](repeating: 0, count: 4096)
            count = read(output.descriptor, &scratch, scratch.count)
            if count > 0 { outputOverflowed = true }
            SecretMemory.zero(&scratch)
        }
        return ChildErrorCapture.after(reading: count, open: &outputOpen)
    }
}
