import Coffer
import CofferBase
import Foundation
import Glibc

/// What the agent does for a request: vault operations on the vaults it holds unlocked. It knows
/// nothing of connections (``AgentServer`` brings it requests), so that another front end in the
/// agent process can serve the same vaults.
package final class AgentRequestHandler: Sendable {
    package let vaults: HeldVaults
    /// How the agent's Secret Service stands; `nil` for an agent without one.
    private let secretService = Guarded<SecretServiceStatus?>(nil)

    package init(vaults: HeldVaults) {
        self.vaults = vaults
    }

    /// Notes, for status, how the agent's Secret Service stands.
    package func report(_ status: SecretServiceStatus) {
        secretService.withLock { $0 = status }
    }

    /// Answers one request from `caller` (`nil`: a peer whose program could not be told).
    /// Safe to call from several threads at once. `stop` forgets every vault here; ending the
    /// serving is the server's part. Every caller is served alike for now: the access rules
    /// that will tell them apart are docs/security.md's "Which program is calling".
    package func handle(_ request: AgentRequest, from caller: Caller?) -> AgentReply {
        switch request {
        case .ping, .status:
            return .agent(pid: getpid(), vaults: vaults.status, failures: vaults.holdFailures, secretService: secretService.withLock { $0 })
        case .stop:
            vaults.forgetAll()
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
