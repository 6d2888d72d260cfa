import Coffer
import CofferBase
import CofferProcess
import FoundationEssentials
import Glibc

/// Kept connections (`identify`: an app's `Keychain(service:)`) served each on a thread of its
/// own, at most ``AgentServerLimits/keptConnectionThreads`` at once. The thread reads a request,
/// answers it and writes the reply itself, so a request crosses no other thread: the connection
/// loop and the workers cost a kept connection's client two hand-overs between threads a request
/// (docs/performance.md, "The login keychain").
///
/// A request that would wait (an unlock's Argon2id, a prompt) goes back to the loop with its
/// connection (``AgentLoopWakeup/handBack(_:)``), which serves it as any other, on threads of
/// their own, and watches for its client hanging up. The thread keeps the loop's bounds: the
/// keep-alive between requests, the request deadline and idle timeout while one arrives, the
/// reply deadline.
final class KeptConnectionThreads: Sendable {
    /// A kept connection going back to the loop with the request it sent.
    struct Returning: Sendable {
        let descriptor: Int32
        let caller: ConnectionCaller
        let request: AgentRequest
    }

    private let limits: AgentServerLimits
    /// The reply to a request when it can be given at once, with nobody asked; `nil` otherwise.
    private let answer: @Sendable (AgentRequest, ConnectionCaller) -> AgentReply?
    private let wakeup: AgentLoopWakeup
    /// The sockets the threads serve, and whether the agent is stopping (then none is taken).
    private let served = Guarded((descriptors: Set<Int32>(), stopping: false))

    init(limits: AgentServerLimits, wakeup: AgentLoopWakeup, answer: @escaping @Sendable (AgentRequest, ConnectionCaller) -> AgentReply?) {
        self.limits = limits
        self.wakeup = wakeup
        self.answer = answer
    }

    /// How many kept connections the threads serve now.
    var count: Int { served.withLock { $0.descriptors.count } }

    /// Serves the kept connection on `socket` (a descriptor the threads then own) on a thread of
    /// its own; `false`, with the descriptor untouched, when every thread is taken or the agent stops.
    func adopt(_ socket: Int32, caller: ConnectionCaller) -> Bool {
        let taken = served.withLock { served in
            guard !served.stopping, served.descriptors.count < limits.keptConnectionThreads else { return false }
            served.descriptors.insert(socket)
            return true
        }
        guard taken else { return false }
        guard DetachedThread.start(name: "coffer agent kept", { [self] in serve(socket, caller) }) else {
            served.withLock { _ = $0.descriptors.remove(socket) }
            return false
        }
        return true
    }

    /// Ends every kept connection (its thread finishes the request under way, if any) and
    /// returns when the threads are done with them, or after the reply deadline. Call it once
    /// the loop has stopped: the connections handed back then are closed here.
    func stop() {
        let descriptors = served.withLock { served in
            served.stopping = true
            return served.descriptors
        }
        for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        let deadline = ContinuousClock.now + limits.replyDeadline
        while count > 0, ContinuousClock.now < deadline { usleep(1_000) }
        for returning in wakeup.takeReturning() { close(returning.descriptor) }
    }

    private func serve(_ socket: Int32, _ caller: ConnectionCaller) {
        var handedBack = false
        defer {
            served.withLock { _ = $0.descriptors.remove(socket) }
            if !handedBack { close(socket) }
        }
        while let request = nextRequest(on: socket) {
            // Argon2id (an unlock's, a share's) runs on the loop's unlock threads, a prompt on its prompt threads.
            guard !request.mayDeriveAKey, let reply = answer(request, caller) else {
                handedBack = true
                return wakeup.handBack(Returning(descriptor: socket, caller: caller, request: request))
            }
            guard send(reply, on: socket) else { return }
            // Only a stop that was done ends the loop: a share refuses one, and goes on.
            if case .stop = request, case .done = reply { return wakeup.requestStop() }
        }
    }

    /// The next request on `socket`, once it has all come; `nil` when the connection ends: its
    /// client closed it or kept silent past the keep-alive, or the request broke a bound or the
    /// protocol (its client is then told why).
    private func nextRequest(on socket: Int32) -> AgentRequest? {
        guard Self.wait(for: POLLIN, on: socket, until: .now + limits.keepAliveTimeout) else { return nil }
        let frame = IncomingFrame()
        defer { frame.wipe() }
        let started = ContinuousClock.now
        var lastHeard = started
        while true {
            let (progress, received) = frame.read(from: socket)
            if received { lastHeard = .now }
            switch progress {
            case .complete:
                do throws(CofferError) {
                    return try frame.request()
                } catch {
                    _ = send(.failure(error), on: socket)
                    return nil
                }
            case .closed:
                return nil
            case .refused(let reason):
                _ = send(.failure(.invalidArgument(reason: reason)), on: socket)
                return nil
            case .incomplete:
                let late = started + limits.requestDeadline, silent = lastHeard + limits.idleTimeout
                guard Self.wait(for: POLLIN, on: socket, until: min(late, silent)) else {
                    _ = send(.failure(late <= silent ? limits.lateRequest : limits.silentConnection), on: socket)
                    return nil
                }
            }
        }
    }

    /// Writes `reply` whole by the reply deadline; `false` when it could not.
    private func send(_ reply: AgentReply, on socket: Int32) -> Bool {
        let frame = OutgoingFrame(reply.message)
        let deadline = ContinuousClock.now + limits.replyDeadline
        while true {
            switch frame.write(to: socket) {
            case .sent: return true
            case .failed: return false
            case .pending: guard Self.wait(for: POLLOUT, on: socket, until: deadline) else { return false }
            }
        }
    }

    /// Waits until `socket` has `events` (or has ended: the next read or write says so); `false`
    /// at `deadline`.
    private static func wait(for events: Int32, on socket: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var polled = pollfd(fd: socket, events: Int16(events), revents: 0)
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            let ready = poll(&polled, 1, Int32(clamping: left.clampedMilliseconds + 1))
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
    }
}
