import Coffer
import Foundation
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

    /// A server on the listening socket `listener`, forgetting a vault after `idleTimeout` unused,
    /// asking the person through `prompter` whether a program may use another's item, brokering
    /// logins with `tokenBroker`.
    package init(
        listener: Int32, idleTimeout: Duration, limits: AgentServerLimits = AgentServerLimits(), prompter: PrompterCommand? = nil,
        tokenBroker: (any TokenBroker)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CofferError) {
        self.listener = listener
        self.limits = limits
        wakeup = try AgentLoopWakeup()
        handler = AgentRequestHandler(
            vaults: HeldVaults(idleTimeout: TimeInterval(idleTimeout.components.seconds), now: now), prompter: prompter,
            tokenBroker: tokenBroker)
        shares = ShareRegistry(handler: handler, callers: callers, now: now)
    }

    /// Serves until a `stop` request or ``stop()``, then forgets every vault and closes the listener.
    package func run() {
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, flags | O_NONBLOCK)
        let quick = AgentWorkerPool(threads: limits.workers, name: "coffer agent")
        let unlocking = AgentWorkerPool(threads: limits.unlockWorkers, name: "coffer agent unlock")
        let prompting = AgentWorkerPool(threads: limits.promptWorkers, name: "coffer agent prompt")
        let loop = AgentConnectionLoop(
            listener: listener, limits: limits, wakeup: wakeup, callers: callers,
            dispatch: { [handler, wakeup, callers, shares] channel, request, peer, cancellation in
                let workers = if case .unlock = request { unlocking } else { quick }
                workers.submit {
                    let caller = peer.caller(using: callers)
                    if let reply = shares.answer(request, from: caller?.program) { return channel.send(reply) }
                    // The shares end, logged, while their vaults are still held.
                    if case .stop = request { shares.endAll() }
                    guard let reply = handler.handleWithoutAsking(request, from: caller) else {
                        // The person is asked: on a thread of its own, holding up no other client.
                        return prompting.submit {
                            channel.send(handler.handle(request, from: caller, cancellation: cancellation))
                        }
                    }
                    channel.send(reply)
                    if case .stop = request { wakeup.requestStop() }
                }
            },
            housekeeping: { [handler] in handler.vaults.expire() })
        loop.run()
        quick.stop()
        unlocking.stop()
        prompting.stop()
        shares.endAll()
        handler.vaults.forgetAll()
        close(listener)
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
