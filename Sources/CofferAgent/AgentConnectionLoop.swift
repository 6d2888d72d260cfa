import Coffer
import CofferAgentWire
import CofferBase
import CofferProcess
import Glibc

/// The agent's connections, all on one thread with non-blocking sockets and `poll`: it accepts,
/// reads each request as its bytes come, hands whole requests to the workers, and writes their
/// replies. A connection that is slow, silent or one of thousands holds up no other: each has a
/// deadline for its request, an idle timeout and a slot under ``AgentServerLimits/maxConnections``.
final class AgentConnectionLoop {
    private let listener: Int32
    private let limits: AgentServerLimits
    private let capacity: Int
    private let wakeup: AgentLoopWakeup
    /// Who is at the other end of each connection, taken at the accept.
    private let callers: CallerResolver
    /// Hands a whole request, the caller that sent it and what cancels a prompt for it to the
    /// workers; its reply goes out through the channel, and comes back through `wakeup`.
    private let dispatch: (ReplyChannel, AgentRequest, ConnectionCaller, PrompterCommand.Run) -> Void
    /// Runs about once a second (the vaults' timeouts).
    private let housekeeping: () -> Void
    /// Where kept connections go between their requests, while a thread is free.
    private let kept: KeptConnectionThreads
    private var connections: [UInt64: AgentConnection] = [:]
    private var nextID: UInt64 = 0
    /// Out of descriptors with no idle connection to close: accepting waits until then.
    private var acceptPausedUntil: ContinuousClock.Instant?

    /// Descriptors kept back from the connections: vault files, the workers' and the process's own.
    private static let reservedDescriptors = 64
    private static let housekeepingInterval = Duration.seconds(1)

    init(
        listener: Int32, limits: AgentServerLimits, wakeup: AgentLoopWakeup, callers: CallerResolver,
        dispatch: @escaping (ReplyChannel, AgentRequest, ConnectionCaller, PrompterCommand.Run) -> Void, housekeeping: @escaping () -> Void,
        kept: KeptConnectionThreads
    ) {
        self.listener = listener
        self.kept = kept
        self.limits = limits
        self.wakeup = wakeup
        self.callers = callers
        self.dispatch = dispatch
        self.housekeeping = housekeeping
        var files = rlimit()
        let openFiles = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0 ? Int(clamping: files.rlim_cur) : 1024
        // Three descriptors a connection: its socket, its peer's pidfd, and the socket's duplicate
        // while a worker answers it (``ReplyChannel``).
        capacity = max(1, min(limits.maxConnections, (openFiles - Self.reservedDescriptors) / 3))
    }

    /// Serves until ``AgentLoopWakeup/requestStop()``; then writes the replies that are ready
    /// (the `stop` request's among them) as far as their sockets take them at once, and closes
    /// every connection.
    func run() {
        var lastHousekeeping = ContinuousClock.now
        while !wakeup.isStopping {
            var polled = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
            let accepting = acceptPausedUntil.map { ContinuousClock.now >= $0 } ?? true
            if accepting { acceptPausedUntil = nil }
            polled.append(pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0))
            var polledIDs: [UInt64] = []
            for connection in connections.values {
                switch connection.state {
                case .reading, .waiting: polled.append(pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0))
                case .writing: polled.append(pollfd(fd: connection.descriptor, events: Int16(POLLOUT), revents: 0))
                // Only a hang-up, once: a prompt for a client that left is ended.
                case .working where !connection.hungUp:
                    polled.append(pollfd(fd: connection.descriptor, events: Int16(Self.hangUp), revents: 0))
                case .working: continue
                }
                polledIDs.append(connection.id)
            }
            _ = poll(&polled, nfds_t(polled.count), milliseconds(until: nextEvent(after: lastHousekeeping)))
            if polled[0].revents != 0 { wakeup.drain() }
            deliverReplies()
            takeReturning()
            for (index, id) in polledIDs.enumerated() where polled[index + 2].revents != 0 {
                if let connection = connections[id] { serve(connection) }
            }
            if polled[1].revents != 0 { acceptWaiting() }
            let now = ContinuousClock.now
            enforceDeadlines(at: now)
            if now - lastHousekeeping >= Self.housekeepingInterval {
                housekeeping()
                lastHousekeeping = now
            }
        }
        deliverReplies()
        for connection in connections.values { connection.cancellation.cancel() }
        connections.removeAll()
    }

    /// `POLLRDHUP`: the peer closed its end (Linux).
    private static let hangUp: Int32 = 0x2000

    // MARK: - Connections

    private func acceptWaiting() {
        // A bounded batch, so that a flood of connections cannot starve the ones already accepted.
        for _ in 0..<64 {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0, AgentSocket.makeNonBlocking(descriptor) else {
                if errno == EINTR { continue }
                if errno == EMFILE || errno == ENFILE, !closeOldestIdle() {
                    acceptPausedUntil = .now + .milliseconds(100)
                }
                return
            }
            let connection = AgentConnection(id: nextID, descriptor: descriptor, peer: try? callers.peer(ofSocket: descriptor), at: .now)
            nextID += 1
            guard AgentSocket.peerUID(descriptor) == geteuid() else {
                dismiss(connection, .invalidArgument(reason: "this agent serves only its own user"))
                continue
            }
            // A worker may have answered a connection that still counts here (its client has the
            // reply, and may be this new connection): settle the answered ones first.
            if served >= capacity { deliverReplies() }
            guard served < capacity || closeOldestIdle() else {
                dismiss(connection, .storageUnavailable(reason: "the agent is busy: all \(capacity) connections are serving requests; try again"))
                continue
            }
            connections[connection.id] = connection
        }
    }

    /// Reads from a connection that is receiving its request, or writes to one that is replying.
    private func serve(_ connection: AgentConnection) {
        if case .waiting = connection.state {
            connection.state = .reading
            connection.requestStartedAt = .now
        }
        switch connection.state {
        case .reading:
            let (progress, received) = connection.request.read(from: connection.descriptor)
            if received { connection.lastHeard = .now }
            switch progress {
            case .incomplete: break
            case .closed: connections[connection.id] = nil
            case .refused(let reason): reply(to: connection, .failure(.invalidArgument(reason: reason)))
            case .complete: start(connection)
            }
        case .writing(let frame, _, let keepOpen):
            if case .pending = frame.write(to: connection.descriptor) { return }
            finish(connection, keepOpen: keepOpen)
        case .working:
            // The client hung up while its request is served: a prompt for it ends now.
            connection.hungUp = true
            connection.cancellation.cancel()
        case .waiting:
            break
        }
    }

    /// The connections open: the loop's and the kept connections' threads'.
    private var served: Int { connections.count + kept.count }

    /// After a reply has gone out: the connection closes, or waits for its next request on a
    /// thread of its own, or here.
    private func finish(_ connection: AgentConnection, keepOpen: Bool) {
        guard keepOpen, !connection.hungUp else {
            connections[connection.id] = nil
            return
        }
        let duplicate = fcntl(connection.descriptor, F_DUPFD_CLOEXEC, 0)
        if duplicate >= 0 {
            guard !kept.adopt(duplicate, caller: connection.caller) else {
                connections[connection.id] = nil
                return
            }
            close(duplicate)
        }
        connection.state = .waiting
        connection.request = IncomingFrame()
        connection.lastHeard = .now
    }

    /// Hands a connection's whole request to the workers, or answers a malformed one at once.
    private func start(_ connection: AgentConnection) {
        defer { connection.request.wipe() }
        let request: AgentRequest
        do throws(CofferError) {
            request = try connection.request.request()
        } catch {
            return reply(to: connection, .failure(error))
        }
        if case .identify = request { connection.keepsOpen = true }
        hand(request, of: connection)
    }

    /// Gives a connection's request to the workers.
    private func hand(_ request: AgentRequest, of connection: AgentConnection) {
        connection.state = .working
        dispatch(ReplyChannel(connection: connection.id, socket: connection.descriptor, wakeup: wakeup), request, connection.caller, connection.cancellation)
    }

    /// Takes back the kept connections whose requests must wait, and hands those to the workers.
    private func takeReturning() {
        for returning in wakeup.takeReturning() {
            let connection = AgentConnection(id: nextID, descriptor: returning.descriptor, caller: returning.caller, at: .now)
            nextID += 1
            connection.keepsOpen = true
            connections[connection.id] = connection
            hand(returning.request, of: connection)
        }
    }

    private func deliverReplies() {
        for (id, frame) in wakeup.takeReplies() {
            guard let connection = connections[id] else { continue }
            send(frame, to: connection, keepOpen: connection.keepsOpen)
        }
    }

    /// Answers a request the workers never saw (malformed): the connection closes after it.
    private func reply(to connection: AgentConnection, _ reply: AgentReply) {
        send(OutgoingFrame(reply.message), to: connection, keepOpen: false)
    }

    private func send(_ frame: OutgoingFrame, to connection: AgentConnection, keepOpen: Bool) {
        switch frame.write(to: connection.descriptor) {
        case .pending: connection.state = .writing(frame, deadline: .now + limits.replyDeadline, keepOpen: keepOpen)
        case .sent: finish(connection, keepOpen: keepOpen)
        case .failed: connections[connection.id] = nil
        }
    }

    /// Answers a connection it will not serve with one attempt at writing `error` (a new
    /// connection's socket buffer is empty, so it fits), and closes it.
    private func dismiss(_ connection: AgentConnection, _ error: CofferError) {
        _ = OutgoingFrame(AgentReply.failure(error).message).write(to: connection.descriptor)
        connections[connection.id] = nil
    }

    /// Closes the oldest connection still sending its request, to make room; `false` when every
    /// connection is being served.
    private func closeOldestIdle() -> Bool {
        guard let oldest = connections.values.filter(\.isIdle).min(by: { $0.id < $1.id }) else { return false }
        dismiss(oldest, .storageUnavailable(reason: "the agent closed this idle connection to make room for a new one"))
        return true
    }

    // MARK: - Time

    private func enforceDeadlines(at now: ContinuousClock.Instant) {
        for connection in Array(connections.values) {
            switch connection.state {
            case .reading:
                if now >= connection.requestStartedAt + limits.requestDeadline {
                    dismiss(connection, limits.lateRequest)
                } else if now >= connection.lastHeard + limits.idleTimeout {
                    dismiss(connection, limits.silentConnection)
                }
            case .writing(_, let deadline, _):
                if now >= deadline { connections[connection.id] = nil }
            case .waiting:
                if now >= connection.lastHeard + limits.keepAliveTimeout { connections[connection.id] = nil }
            case .working:
                break
            }
        }
    }

    /// The next moment a deadline, the housekeeping or a paused accept needs the loop.
    private func nextEvent(after lastHousekeeping: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var next = lastHousekeeping + Self.housekeepingInterval
        if let acceptPausedUntil { next = min(next, acceptPausedUntil) }
        for connection in connections.values {
            switch connection.state {
            case .reading: next = min(next, connection.requestStartedAt + limits.requestDeadline, connection.lastHeard + limits.idleTimeout)
            case .writing(_, let deadline, _): next = min(next, deadline)
            case .waiting: next = min(next, connection.lastHeard + limits.keepAliveTimeout)
            case .working: continue
            }
        }
        return next
    }

    private func milliseconds(until instant: ContinuousClock.Instant) -> Int32 {
        let wait = instant - .now
        guard wait > .zero else { return 0 }
        return Int32(clamping: wait.clampedMilliseconds + 1)
    }
}
