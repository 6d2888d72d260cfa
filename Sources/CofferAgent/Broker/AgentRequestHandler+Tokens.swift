import Coffer

/// The token requests (docs/agent.md, "The token broker"): who may have a profile's tokens is
/// decided as for an item, on the profile's settings item (``BrokeredSessions/settingsID(profile:)``):
/// its owner, the program that logged in, silently; other programs by the vault's policy and
/// the prompt. Every token handed out, and every refusal, is in the audit log: the program, the
/// profile and the scope, never a token.
extension AgentRequestHandler {
    func answerBrokered(
        _ request: AgentRequest, from program: Program?, asking: Bool, cancellation: PrompterCommand.Run?, gate: AccessGate
    ) -> AgentReply? {
        guard let broker = tokenBroker else { return .failure(.invalidArgument(reason: "this agent brokers no logins")) }
        switch request {
        case .token(let path, let profile, let refused):
            return withVault(path) { vault throws(CofferError) in
                switch try authorizeLogin(.token, profile: profile, in: vault, at: path, by: program, asking: asking, cancellation: cancellation, gate: gate) {
                case .mustAsk: return nil
                case .absent: return .tokenFailure(.notLoggedIn)
                case .allowed(let decision):
                    // A refresh may take the provider's time: on a thread where waiting holds up no other client.
                    let fresh = refused == nil ? broker.freshToken(profile: profile, in: vault, at: path) : nil
                    guard asking || fresh != nil else { return nil }
                    let result: Result<BrokeredToken, TokenFailure>
                    if let fresh { result = .success(fresh) } else { result = try broker.token(profile: profile, refused: refused, in: vault, at: path) }
                    switch result {
                    case .failure(let failure): return .tokenFailure(failure)
                    case .success(let token):
                        try gate.record(.token, item: Self.auditItem(profile: profile, scope: token.scope), in: vault, by: program, decision: decision)
                        return .token(token)
                    }
                }
            }
        case .keepLogin(let path, let profile, let login):
            // Only the program that made a login replaces it, whatever the policy, and nobody is
            // asked: a program allowed the login's tokens would otherwise choose where its refresh
            // token goes next, and who else gets its tokens.
            // It waits for a refresh of the login in flight: on a thread where waiting holds up no other client.
            guard asking else { return nil }
            return withVault(path) { vault throws(CofferError) in
                let id = BrokeredSessions.settingsID(profile: profile)
                do throws(CofferError) {
                    try broker.keep(login, profile: profile, in: vault, at: path, owner: program)
                } catch .accessDenied {
                    try gate.record(.write, item: id, in: vault, by: program, decision: .denied)
                    throw .accessDenied(program: AccessGate.name(of: program))
                }
                try gate.record(.write, item: id, in: vault, by: program, decision: .owner)
                return .done
            }
        case .endLogin(let path, let profile):
            return withVault(path) { vault throws(CofferError) in
                switch try authorizeLogin(.delete, profile: profile, in: vault, at: path, by: program, asking: asking, cancellation: cancellation, gate: gate) {
                case .mustAsk: return nil
                case .absent: return .count(0)
                case .allowed(let decision):
                    guard asking else { return nil }  // revoking takes the provider's time
                    switch try broker.end(profile: profile, in: vault, at: path) {
                    case .failure(let failure): return .tokenFailure(failure)
                    case .success(let count):
                        try gate.record(.delete, item: BrokeredSessions.settingsID(profile: profile), in: vault, by: program, decision: decision)
                        return .count(count)
                    }
                }
            }
        default:
            return nil
        }
    }

    /// What ``authorizeLogin(_:profile:in:at:by:asking:cancellation:gate:)`` found.
    private enum LoginAccess {
        case absent
        case mustAsk
        case allowed(AuditEntry.Decision)
    }

    /// Whether `program` may use the login `profile`; a refusal is logged and thrown as
    /// ``CofferError/accessDenied(program:)``. Through a share's gate (only a profile's share
    /// lets a token request through, ``ShareFilter``) the decision is the share's: `shared`.
    private func authorizeLogin(
        _ action: AuditEntry.Action, profile: String, in vault: Vault, at path: String, by program: Program?, asking: Bool,
        cancellation: PrompterCommand.Run?, gate: AccessGate
    ) throws(CofferError) -> LoginAccess {
        let id = BrokeredSessions.settingsID(profile: profile)
        guard let (item, access) = try vault.itemWithAccess(for: id) else { return .absent }
        guard let (decision, allowed) = try gate.decide(
            item: item.attributes, access: access, in: vault, at: path, by: program, cancellation: cancellation, mayAsk: asking)
        else { return .mustAsk }
        guard allowed else {
            try gate.record(action, item: id, in: vault, by: program, decision: decision)
            throw .accessDenied(program: AccessGate.name(of: program))
        }
        return .allowed(decision)
    }

    /// How the audit log names a token handed out: the profile and the scope granted, in the
    /// service of brokered logins; never the token.
    static func auditItem(profile: String, scope: String?) -> ItemID {
        .genericPassword(service: BrokeredSessions.service, account: profile + (scope.map { " scope=\($0)" } ?? ""))
    }
}
