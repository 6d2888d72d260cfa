import CofferAgentWire
import CofferBase
import Glibc

/// The connection to the agent that a process opens while the agent can still tell which
/// program it is, and keeps for its later requests (docs/security.md, "Coffer's own tools").
///
/// Coffer's tools make themselves not dumpable at start, and the agent cannot read the
/// executable of a process that is not dumpable. So first they connect and send `identify`: the
/// agent works out the program then, and answers every later request on this connection as that
/// program. ``AgentClient/send(_:)`` uses the kept connection for requests to its agent.
package enum KeptAgentConnection {
    private struct Kept {
        let path: String
        let descriptor: Int32
        /// The timeout set on the socket's reads and writes, set again only when a request asks another.
        var timeout: Duration
    }

    private static let kept = Guarded<Kept?>(nil)

    /// Connects to the agent at `path`, checks that it is this user's (as every client does),
    /// and has it identify this process; the connection is kept when it answers. Its descriptor
    /// is never one of `reserved` (descriptors the command line names that are closed now, and
    /// are to be read later). Returns whether a connection is kept; on any failure nothing is.
    @discardableResult
    package static func open(path: String, timeout: Duration, reserved: [Int32] = []) -> Bool {
        (try? connect(path: path, timeout: timeout, reserved: reserved)) != nil
    }

    /// ``open(path:timeout:reserved:)``, saying why nothing is kept.
    package static func connect(path: String, timeout: Duration, reserved: [Int32] = []) throws(AgentSocket.Unreachable) {
        close()
        var descriptor = try AgentSocket.connect(path: path, timeout: timeout)
        if reserved.contains(descriptor), let highest = reserved.max() {
            let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, highest + 1)
            Glibc.close(descriptor)
            guard moved >= 0 else { throw .broken("cannot move the connection's descriptor: \(AgentSocket.describe(errno))") }
            descriptor = moved
        }
        do throws(AgentSocket.Unreachable) {
            try AgentSocket.checkPeer(descriptor, path: path)
            AgentSocket.setTimeout(descriptor, timeout)
            guard case .agent = try exchange(.identify, over: descriptor) else {
                throw .broken("the agent did not identify this process")
            }
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        kept.withLock { $0 = Kept(path: path, descriptor: descriptor, timeout: timeout) }
    }

    /// Closes the kept connection, if any: later requests go over connections of their own.
    package static func close() {
        kept.withLock { kept in
            if let descriptor = kept?.descriptor { Glibc.close(descriptor) }
            kept = nil
        }
    }

    /// Whether a connection to the agent at `path` is kept.
    package static func isKept(for path: String) -> Bool {
        kept.withLock { $0?.path == path }
    }

    /// The reply to `request` over the kept connection to `path`; `nil` when none is kept for
    /// it, or the agent has closed it since (its keep-alive ran out, or it made room for
    /// another): it is then dropped, and the request goes over a new connection. A failure
    /// during the exchange drops it too, and throws.
    static func send(_ request: AgentRequest, to path: String, timeout: Duration) throws(AgentSocket.Unreachable) -> AgentReply? {
        try kept.withLock { kept throws(AgentSocket.Unreachable) -> AgentReply? in
            guard var current = kept, current.path == path else { return nil }
            // Between requests the agent sends nothing: anything readable is its close (or the
            // reason for it).
            var waiting = pollfd(fd: current.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 0) == 0 else {
                Glibc.close(current.descriptor)
                kept = nil
                return nil
            }
            if current.timeout != timeout {
                AgentSocket.setTimeout(current.descriptor, timeout)
                current.timeout = timeout
                kept = current
            }
            do throws(AgentSocket.Unreachable) {
                return try exchange(request, over: current.descriptor)
            } catch {
                Glibc.close(current.descriptor)
                kept = nil
                throw error
            }
        }
    }

    private static func exchange(_ request: AgentRequest, over descriptor: Int32) throws(AgentSocket.Unreachable) -> AgentReply {
        let message = try AgentSocket.exchange(request.message, over: descriptor)
        do {
            return try AgentReply(message, to: request)
        } catch {
            throw .broken("the agent's reply breaks the protocol: \(error)")
        }
    }
}
