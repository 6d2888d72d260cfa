import Coffer
import FoundationEssentials

/// The one decision for a request that arrives on a share's socket: what the share's grant lets
/// through goes on to the agent's handler, on the shared vault whatever vault the request names
/// (a client in a sandbox works its path out from an environment where the vault may not
/// exist); everything else is answered here, a read outside the grant exactly as a missing
/// item is, so that nothing outside it can be found (docs/security.md, "Sharing with sandboxes
/// and other hosts"). A profile's share lets through only its profile's token requests: no
/// item, and no login kept or ended.
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

    /// The reply to `request` from `caller` when it can be given now: the filter's own, or the
    /// handler's through the share's gate, which asks nobody; `nil` when it would wait (a token
    /// the provider must refresh first): then ``reply(to:from:handler:)`` answers it, on a
    /// thread where waiting holds up no other client.
    func replyAtOnce(to request: AgentRequest, from caller: Caller?, handler: AgentRequestHandler) -> AgentReply? {
        switch admit(request, by: caller?.program, vaults: handler.vaults, gate: handler.shareGate) {
        case .answer(let reply): reply
        case .forward(let forwarded): handler.handleWithoutAsking(forwarded, from: caller, throughShare: true).map { shaped($0, to: request, in: handler.vaults) }
        }
    }

    /// The reply to `request` from `caller`, waiting for the provider when a token needs it.
    func reply(to request: AgentRequest, from caller: Caller?, handler: AgentRequestHandler) -> AgentReply {
        switch admit(request, by: caller?.program, vaults: handler.vaults, gate: handler.shareGate) {
        case .answer(let reply): reply
        case .forward(let forwarded): shaped(handler.handle(forwarded, from: caller, throughShare: true), to: request, in: handler.vaults)
        }
    }

    /// A listing's covered items alone (a program's share: the query could not say which), one
    /// page of them: paged after the filter, so that no page's cursor names an item outside the grant.
    private func shaped(_ reply: AgentReply, to request: AgentRequest, in vaults: HeldVaults) -> AgentReply {
        guard case .items(let listed, _) = reply, case .items(_, _, let after) = request else { return reply }
        let left = ItemPage.following(after, in: listed)
        guard case .program = grant.scope else { return ItemPage.reply(left) }
        // Each item's owner is a read of the vault: only as many as the page takes.
        return ItemPage.reply(left.lazy.filter { covers($0.id, in: vaults) })
    }

    /// Decides `request` from `program`, logging each refusal of an item or a login in the vault's audit log.
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
        case .stop, .unlock, .lock, .share, .unshare:
            return .answer(denied)
        case .token(_, let profile, let refused):
            // Only the shared profile's tokens are minted: its refresh token stays in the agent.
            guard profile == grant.profile else { return refuse(.token, BrokeredSessions.settingsID(profile: profile), answer: denied) }
            return .forward(.token(vault: vault, profile: profile, refused: refused))
        case .keepLogin(_, let profile, _):
            // Nobody through a share logs in over the person's login, or out of it.
            return refuse(.write, BrokeredSessions.settingsID(profile: profile), answer: denied)
        case .endLogin(_, let profile):
            return refuse(.delete, BrokeredSessions.settingsID(profile: profile), answer: denied)
        case .holds:
            return .forward(.holds(vault: vault))
        case .helperGet:
            // The helper asks item by item instead, and the grant is applied to each request.
            return .answer(.failure(.invalidArgument(reason: "a share answers a credential helper's requests one by one")))
        case .listing:
            // coffer asks with an items request instead, whose answer the grant filters.
            return .answer(.failure(.invalidArgument(reason: "a share answers a listing as an items request")))
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
        case .items(_, let query, _):
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
