import Coffer
import CofferAgentWire
import CofferBase
import CofferProcess
import FoundationEssentials
import Dispatch
import Glibc

/// One share being served: its own socket and connection loop on a thread of its own, each
/// request passed through the share's ``ShareFilter`` to the agent's handler. It ends at its
/// deadline, or at once when told (``end(_:by:)``): the loop stops, every connection on it
/// closes, and its socket file is removed.
final class SharedSocket: Sendable {
    let path: String
    let filter: ShareFilter
    let expiresAt: Date
    private let listener: Int32
    /// The socket file this share made, so that it removes that file and no other put there since.
    private let file: (device: UInt64, inode: UInt64)
    private let deadline: ContinuousClock.Instant
    private let wakeup: AgentLoopWakeup
    /// Why it ends, and who ended it; set once.
    private let ending = Guarded<(ShareEnding, Program?)?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Listens at `path` for a share of `filter`'s grant lasting `lifetime`.
    init(path: String, filter: ShareFilter, lifetime: Duration, now: Date) throws(CofferError) {
        listener = try AgentSocket.listen(path: path)
        var info = stat()
        // The loop accepts until the backlog is empty: a blocking accept would hang it.
        let flags = fcntl(listener, F_GETFL)
        guard flags >= 0, fcntl(listener, F_SETFL, flags | O_NONBLOCK) == 0, stat(path, &info) == 0, let wakeup = try? AgentLoopWakeup() else {
            close(listener)
            unlink(path)
            throw .storageUnavailable(reason: "cannot serve a share at \(path)")
        }
        self.path = path
        self.filter = filter
        self.wakeup = wakeup
        file = (UInt64(info.st_dev), UInt64(info.st_ino))
        deadline = .now + lifetime
        expiresAt = now.addingTimeInterval(TimeInterval(lifetime.components.seconds))
    }

    /// Serves on a thread of its own until the share ends; then calls `ended` with why, and who ended it.
    /// False when no thread could be started: the share has then ended at once, as stopped.
    @discardableResult
    func start(handler: AgentRequestHandler, callers: CallerResolver, ended: @escaping @Sendable (ShareEnding, Program?) -> Void) -> Bool {
        let serving = DetachedThread.start(name: "coffer share") { [self] in
            let workers = AgentWorkerPool(threads: 2, name: "coffer share")
            // A token the provider must refresh first waits there, holding up no item request.
            let waiting = AgentWorkerPool(threads: 2, name: "coffer share wait")
            let limits = AgentServerLimits()
            let kept = KeptConnectionThreads(limits: limits, wakeup: wakeup) { [filter] request, peer in
                filter.replyAtOnce(to: request, from: peer.caller(using: callers), handler: handler)
            }
            let loop = AgentConnectionLoop(
                listener: listener, limits: limits, wakeup: wakeup, callers: callers,
                dispatch: { [filter, wakeup] channel, request, peer, _ in
                    workers.submit {
                        let caller = peer.caller(using: callers)
                        guard let reply = filter.replyAtOnce(to: request, from: caller, handler: handler) else {
                            return waiting.submit {
                                let reply = filter.reply(to: request, from: caller, handler: handler)
                                // A share that ended while the provider answered hands out nothing more.
                                if !wakeup.isStopping { channel.send(reply) }
                            }
                        }
                        channel.send(reply)
                    }
                },
                housekeeping: { [self] in if ContinuousClock.now >= deadline { stop(.expired, by: nil) } }, kept: kept)
            loop.run()
            kept.stop()
            workers.stop()
            waiting.stop()
            close(listener)
            var info = stat()
            if stat(path, &info) == 0, UInt64(info.st_dev) == file.device, UInt64(info.st_ino) == file.inode { unlink(path) }
            let (reason, program) = ending.withLock { $0 } ?? (.stopped, nil)
            ended(reason, program)
            finished.signal()
        }
        if !serving {
            discard()
            ended(.stopped, nil)
            finished.signal()
        }
        return serving
    }

    /// Closes a share that never started serving, and removes its socket file.
    func discard() {
        close(listener)
        unlink(path)
    }

    /// Ends the share for `reason` and returns once its socket is gone and its connections closed.
    func end(_ reason: ShareEnding, by program: Program?) {
        stop(reason, by: program)
        finished.wait()
        finished.signal()
    }

    /// Tells the loop to stop, keeping the first reason given.
    private func stop(_ reason: ShareEnding, by program: Program?) {
        ending.withLock { if $0 == nil { $0 = (reason, program) } }
        wakeup.requestStop()
    }
}
