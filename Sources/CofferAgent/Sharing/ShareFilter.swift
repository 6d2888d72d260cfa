import Coffer
import Foundation

/// The one decision for a request that arrives on a share's socket: what the share's grant lets
/// through goes on to the agent's handler, on the shared vault whatever vault the request names
/// (a client in a sandbox works its path out from an environment where the vault may not
/// exist); everything else is answered here, a read outside the grant exactly as a missing
/// item is, so that nothing outside it can be found (docs/security.md, "Sharing with sandboxes
/// and other hosts").
struct ShareFilter: Sendable {
    /// The shared vault's real path.
    let vault: String
    let grant: ShareGrant

    /// What becomes of a request.
    enum Admission {
        /// Answered here: a refusal, or what a share may say of the agent.
        case answer(AgentReply)
        /// Goes to the handler, rewritten for the shared vault and the grant.
        case forward(AgentRequest)
    }

    /// The reply to `request` from `caller`: the filter's own, or the handler's through the share's gate.
    func reply(to request: AgentRequest, from caller: Caller?, handler: AgentRequestHandler) -> AgentReply {
        switch admit(request, by: caller?.program, vaults: handler.vaults, gate: handler.shareGate) {
        case .answer(let reply):
            return reply
        case .forward(let forwarded):
            // The share's gate never asks, so there is always a reply.
            let reply = handler.handleWithoutAsking(forwarded, from: caller, throughShare: true)
                ?? .failure(.accessDenied(program: AccessGate.name(of: caller?.program)))
            guard case .items(let listed) = reply, case .program = grant.scope else { return reply }
            return .items(listed.filter { covers($0.id, in: handler.vaults) })
        }
    }

    /// Decides `request` from `program`, logging each refusal of an item in the vault's audit log.
    func admit(_ request: AgentRequest, by program: Program?, vaults: HeldVaults, gate: AccessGate) -> Admission {
        func refuse(_ action: AuditEntry.Action, _ id: ItemID?, answer: AgentReply) -> Admission {
            if let held = vaults.use(vault) { try? gate.record(action, item: id, in: held, by: program, decision: .outsideGrant) }
            return .answer(answer)
        }
        let denied = AgentReply.failure(.accessDenied(program: AccessGate.name(of: program)))
        switch request {
        case .ping, .identify, .status:
            // Nothing of the agent: no vault path, no other vault, no pid.
            return .answer(.agent(pid: 0, vaults: []))
        case .stop, .unlock, .lock, .share, .unshare, .token, .keepLogin, .endLogin:
            // A share never mints tokens (`agent share --profile` is yet to come).
            return .answer(denied)
        case .holds:
            return .forward(.holds(vault: vault))
        case .item(_, let id):
            guard covers(id, in: vaults) else { return refuse(.read, id, answer: .item(nil)) }
            return .forward(.item(vault: vault, id: id))
        case .secret(_, let id):
            guard covers(id, in: vaults) else { return refuse(.read, id, answer: .secret(nil)) }
            return .forward(.secret(vault: vault, id: id))
        case .remove(_, let id):
            guard covers(id, in: vaults) else { return refuse(.delete, id, answer: .count(0)) }
            guard grant.readWrite else { return refuse(.delete, id, answer: denied) }
            return .forward(.remove(vault: vault, id: id))
        case .set(_, let id, let secret, let options):
            // A write is refused the same way whether or not the item exists.
            guard grant.readWrite, covers(id, in: vaults) else { return refuse(.write, id, answer: denied) }
            return .forward(.set(vault: vault, id: id, secret: secret, options: options))
        case .items(_, let query):
            guard let narrowed = grant.narrowed(query) else { return .answer(.items([])) }
            return .forward(.items(vault: vault, query: narrowed))
        case .removeAll(_, let query):
            // A program's items are known only one by one: a share of them removes no query's worth.
            guard grant.readWrite, case .service = grant.scope else { return refuse(.delete, nil, answer: denied) }
            guard let narrowed = grant.narrowed(query) else { return .answer(.count(0)) }
            return .forward(.removeAll(vault: vault, query: narrowed))
        }
    }

    /// Whether the grant covers `id`: its service's terms, or (a program's share) the owner the
    /// vault records for it. An item that does not exist has no owner, so a program's share
    /// covers it not.
    private func covers(_ id: ItemID, in vaults: HeldVaults) -> Bool {
        guard case .program = grant.scope else { return grant.covers(id, owner: nil) }
        guard let held = vaults.use(vault), let found = try? held.itemWithAccess(for: id) else { return false }
        return grant.covers(id, owner: found.access.owner)
    }
}
