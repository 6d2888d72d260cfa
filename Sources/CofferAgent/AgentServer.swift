import Coffer
import CofferBase
import FoundationEssentials
import Glibc

/// The agent: serves requests on its socket, performing vault operations on the vaults it holds
/// unlocked, for its own user only (`SO_PEERCRED`, checked on every connection), knowing which
/// program sends each request (``CallerResolver``).
///
/// One thread runs the connections (``AgentConnectionLoop``); threads of the agent's own answer
/// the requests (``AgentRequestHandler``): unlocks on theirs, so that Argon2id holds up nothing else.
package final class AgentServer: Sendable {
    private let listener: Int32
    private let limits: AgentServerLimits
    private let wakeup: AgentLoopWakeup
    /// What the requests are answered by: the vaults the agent holds.
    package let handler: AgentRequestHandler
    /// Who sends each request: the program of each connection's peer, worked out by the
    /// worker that serves the connection's first request and kept for its later ones.
    package let callers = CallerResolver()
    /// The shares of held vaults on sockets of their own (`coffer agent share`).
    package let shares: ShareRegistry
    /// The threads of the kept connections, while the server runs.
    private let kept = Guarded<KeptConnectionThreads?>(nil)

    /// A server on the listening socket `listener`, forgetting a vault after `idleTimeout` unused,
    /// asking the person through `prompter` whether a program may use another's item, brokering
    /// logins with `tokenBroker`, answering credential helpers' `get` by `helperRules`.
    package init(
        listener: Int32, idleTimeout: Duration, limits: AgentServerLimits = AgentServerLimits(), prompter: PrompterCommand? = nil,
        tokenBroker: (any TokenBroker)? = nil, helperRules: (any CredentialHelperRules)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CofferError) {
        self.listener = listener
        self.limits = limits
        wakeup = try AgentLoopWakeup()
        handler = AgentRequestHandler(
            vaults: HeldVaults(idleTimeout: TimeInterval(idleTimeout.components.seconds), now: now), prompter: prompter,
            tokenBroker: tokenBroker, helperRules: helperRules)
        shares = ShareRegistry(handler: handler, callers: callers, now: now)
    }

    /// Serves until a `stop` request or ``stop()``, then forgets every vault and closes the listener.
    package func run() {
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, flags | O_NONBLOCK)
        let quick = AgentWorkerPool(threads: limits.workers, name: "coffer agent")
        let unlocking = AgentWorkerPool(threads: limits.unlockWorkers, name: "coffer agent unlock")
        let prompting = AgentWorkerPool(threads: limits.promptWorkers, name: "coffer agent prompt")
        let kept = KeptConnectionThreads(limits: limits, wakeup: wakeup) { [self, callers] request, peer in
            self.answerAtOnce(request, from: peer.caller(using: callers))
        }
        self.kept.withLock { $0 = kept }
        let loop = AgentConnectionLoop(
            listener: listener, limits: limits, wakeup: wakeup, callers: callers,
            dispatch: { [self, handler, wakeup, callers] channel, request, peer, cancellation in
                let workers = request.mayDeriveAKey ? unlocking : quick
                let serve = { @Sendable in
                    let caller = peer.caller(using: callers)
                    guard let reply = self.answerAtOnce(request, from: caller) else {
                        // The person is asked: on a thread of its own, holding up no other client.
                        return prompting.submit {
                            channel.send(handler.handle(request, from: caller, cancellation: cancellation))
                        }
                    }
                    channel.send(reply)
                    if case .stop = request { wakeup.requestStop() }
                }
                workers.submit {
                    // A program not seen before has its executable hashed first: off the quick threads.
                    guard workers !== quick || peer.isKnownQuickly(using: callers) else { return prompting.submit(serve) }
                    serve()
                }
            },
            housekeeping: { [handler] in handler.vaults.expire() }, kept: kept)
        loop.run()
        kept.stop()
        self.kept.withLock { $0 = nil }
        quick.stop()
        unlocking.stop()
        prompting.stop()
        shares.endAll()
        handler.vaults.forgetAll()
        close(listener)
    }

    /// How many kept connections are served each on a thread of its own now (``KeptConnectionThreads``).
    package var connectionsOnThreadsOfTheirOwn: Int {
        kept.withLock { $0?.count ?? 0 }
    }

    /// The reply to `request` from `caller` when nobody has to be asked for it; `nil` when the
    /// person must be. Shares are made and ended here; a `stop` ends them first, logged, while
    /// their vaults are still held.
    private func answerAtOnce(_ request: AgentRequest, from caller: Caller?) -> AgentReply? {
        if let reply = shares.answer(request, from: caller?.program) { return reply }
        if case .stop = request { shares.endAll() }
        return handler.handleWithoutAsking(request, from: caller)
    }

    /// Holds `vault`, opened at start (`agent start --hold`), until `lock` or stop.
    package func holdUntilStopped(_ vault: Vault, at path: String) {
        handler.vaults.hold(vault, at: path, for: nil)
    }

    /// Notes, for status, that `agent start --hold` could not open the vault at `path`.
    package func reportHoldFailure(_ message: String, at path: String) {
        handler.vaults.recordFailure(message, at: path)
    }

    /// Ends ``run()`` promptly (an unlock under way finishes first); every vault is forgotten.
    package func stop() {
        wakeup.requestStop()
    }
}
