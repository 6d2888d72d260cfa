import Coffer
import CofferBase
import FoundationEssentials

/// The agent's shares (`coffer agent share`), by socket path: makes them, ends them on
/// `unshare` or when the agent stops, and logs each one's start and end in the shared vault's
/// audit log (docs/agent.md, "Sharing").
package final class ShareRegistry: Sendable {
    private let shares = Guarded<[String: SharedSocket]>([:])
    private let handler: AgentRequestHandler
    private let callers: CallerResolver
    private let now: @Sendable () -> Date

    package init(handler: AgentRequestHandler, callers: CallerResolver, now: @escaping @Sendable () -> Date = { Date() }) {
        self.handler = handler
        self.callers = callers
        self.now = now
    }

    /// The reply to a `share` or `unshare` request from `program`; `nil` for any other request.
    package func answer(_ request: AgentRequest, from program: Program?) -> AgentReply? {
        switch request {
        case .share(let vault, let socket, let grant, let lifetime, let credential):
            return open(vault: vault, socket: socket, grant: grant, lifetime: lifetime, credential: credential, by: program)
        case .unshare(let socket):
            guard let share = shares.withLock({ $0[socket] }) else {
                return .failure(.invalidArgument(reason: "no share is served at \(socket)"))
            }
            share.end(.revoked, by: program)
            return .done
        default:
            return nil
        }
    }

    /// Ends every share (the agent stops), each logged `stopped` while its vault is still held.
    package func endAll() {
        for share in shares.withLock({ Array($0.values) }) { share.end(.stopped, by: nil) }
    }

    private func open(
        vault: String, socket: String, grant: ShareGrant, lifetime: UInt32, credential: AgentCredential?, by program: Program?
    ) -> AgentReply {
        guard let held = handler.vaults.use(vault) else { return .notHeld }
        if let refusal = refusal(of: grant, in: held, credential: credential, by: program) { return refusal }
        // A profile's share of no login would mint nothing: a mistake, told now.
        if let profile = grant.profile, handler.tokenBroker == nil || (try? held.itemWithAccess(for: BrokeredSessions.settingsID(profile: profile))) == nil {
            return .failure(.invalidArgument(reason: "the agent holds no login of profile \(profile) in that vault: `coffer login --profile \(profile)` while it holds the vault"))
        }
        let share: SharedSocket
        do throws(CofferError) {
            share = try SharedSocket(
                path: socket, filter: ShareFilter(vault: vault, grant: grant), lifetime: .seconds(Int(lifetime)), now: now())
        } catch {
            return .failure(error)
        }
        do throws(CofferError) {
            // No share serves unrecorded.
            try handler.gate.record(.share, item: grant.item, in: held, by: program, decision: .shared)
        } catch {
            share.discard()
            return .failure(error)
        }
        shares.withLock { $0[socket] = share }
        let serving = share.start(handler: handler, callers: callers) { [self] reason, ender in
            shares.withLock { if $0[socket] === share { $0[socket] = nil } }
            if let held = handler.vaults.use(vault) {
                try? handler.gate.record(.unshare, item: grant.item, in: held, by: ender, decision: reason.decision)
            }
        }
        return serving ? .done : .failure(.storageUnavailable(reason: "cannot start a thread to serve the share at \(socket)"))
    }

    /// Why `program` may not share `grant` of `held`, or `nil` when it may. A share lets its
    /// clients past every owner and access list, so it is the person's decision, not a
    /// program's: unless the vault's policy is `open` (where every program may use every item
    /// anyway), the request must carry a credential that opens the vault, which `coffer agent
    /// share` reads as `coffer unlock` does (docs/security.md, "Sharing with sandboxes and
    /// other hosts"). A refusal is logged.
    private func refusal(of grant: ShareGrant, in held: Vault, credential: AgentCredential?, by program: Program?) -> AgentReply? {
        do throws(CofferError) {
            guard try held.accessPolicy() != .open else { return nil }
            do throws(CofferError) {
                guard let credential else { throw .accessDenied(program: AccessGate.name(of: program)) }
                try held.check(try credential.vaultCredential)
                return nil
            } catch {
                try handler.gate.record(.share, item: grant.item, in: held, by: program, decision: .denied)
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }
}
