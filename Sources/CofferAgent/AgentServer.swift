import Coffer
import Dispatch
import Foundation
import Glibc

/// The agent: serves requests on its socket, performing vault operations on the vaults it holds
/// unlocked, for its own user only (`SO_PEERCRED`, checked on every connection).
package final class AgentServer: Sendable {
    private let listener: Int32
    private let vaults: HeldVaults
    private let stopping = Locked(false)
    /// How long one connection may take to send its request or read its reply.
    private let connectionTimeout: Duration

    /// A server on the listening socket `listener`, forgetting a vault after `idleTimeout` unused;
    /// `vaults`, when given, are held vaults it shares (with the Secret Service provider).
    package init(
        listener: Int32, idleTimeout: Duration, connectionTimeout: Duration = .seconds(10), vaults: HeldVaults? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.listener = listener
        self.vaults = vaults ?? HeldVaults(idleTimeout: TimeInterval(idleTimeout.components.seconds), now: now)
        self.connectionTimeout = connectionTimeout
    }

    /// Serves until a `stop` request or ``stop()``; each connection on a thread of its own, so
    /// a slow unlock (Argon2id) holds up no other request.
    package func run() {
        while !stopping.withLock({ $0 }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 1000)
            vaults.expire()
            guard ready > 0, !stopping.withLock({ $0 }) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            DispatchQueue.global().async { [self] in
                serve(connection)
                close(connection)
            }
        }
        vaults.forgetAll()
        close(listener)
    }

    /// Ends ``run()`` within a second; every vault is forgotten.
    package func stop() {
        stopping.withLock { $0 = true }
    }

    private func serve(_ connection: Int32) {
        AgentSocket.setTimeout(connection, connectionTimeout)
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc's module does not export.
        var peer: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0, peer.uid == geteuid() else {
            _ = AgentSocket.write(AgentReply.failure(.invalidArgument(reason: "this agent serves only its own user")).message, to: connection)
            return
        }
        guard let message = AgentSocket.read(from: connection) else {
            _ = AgentSocket.write(AgentReply.failure(.invalidArgument(reason: "a malformed or oversized request")).message, to: connection)
            return
        }
        let reply: AgentReply
        do {
            reply = handle(try AgentRequest(message))
        } catch {
            reply = .failure(.invalidArgument(reason: "a request that breaks the protocol: \(error)"))
        }
        _ = AgentSocket.write(reply.message, to: connection)
    }

    /// Answers one request.
    package func handle(_ request: AgentRequest) -> AgentReply {
        switch request {
        case .ping, .status:
            return .agent(pid: getpid(), vaults: vaults.status)
        case .stop:
            stop()
            return .done
        case .lock(let path):
            if let path { vaults.forget(path) } else { vaults.forgetAll() }
            return .done
        case .holds(let path):
            guard let vault = vaults.use(path) else { return .notHeld }
            guard vault.isUnlockedWithCurrentKeys() else {
                vaults.forget(path)
                return .notHeld
            }
            return .done
        case .unlock(let path, let credential, let lifetime):
            do throws(CofferError) {
                let vault = try Vault.open(at: URL(fileURLWithPath: path), unlock: try credential.vaultCredential)
                vaults.hold(vault, at: path, for: TimeInterval(lifetime))
                return .done
            } catch {
                return .failure(error)
            }
        case .set(let path, let id, let secret, let options):
            return withVault(path) { vault throws(CofferError) in try vault.set(secret, for: id, options: options); return .done }
        case .item(let path, let id):
            return withVault(path) { vault throws(CofferError) in .item(try vault.item(for: id)) }
        case .secret(let path, let id):
            return withVault(path) { vault throws(CofferError) in .secret(try vault.secret(for: id)) }
        case .remove(let path, let id):
            return withVault(path) { vault throws(CofferError) in .count(try vault.remove(id) ? 1 : 0) }
        case .items(let path, let query):
            return withVault(path) { vault throws(CofferError) in .items(try vault.items(matching: query)) }
        case .removeAll(let path, let query):
            return withVault(path) { vault throws(CofferError) in .count(try vault.removeAll(matching: query)) }
        }
    }

    /// Runs `body` on the vault held for `path`. A vault that finds itself locked (another process
    /// rotated its key) is forgotten, and the client told the agent does not hold it.
    private func withVault(_ path: String, _ body: (Vault) throws(CofferError) -> AgentReply) -> AgentReply {
        guard let vault = vaults.use(path) else { return .notHeld }
        do throws(CofferError) {
            return try body(vault)
        } catch .locked {
            vaults.forget(path)
            return .notHeld
        } catch {
            return .failure(error)
        }
    }
}
