import Coffer
import CofferBase
import FoundationEssentials

/// Decides whether a program may use an item of a vault the agent holds (docs/security.md,
/// "Per-application access"), and logs each decision in the vault's audit log. One gate serves
/// every front door: the agent socket, the Secret Service and the credential helpers.
///
/// The rules, by the vault's policy:
/// - `open`: every program.
/// - `confirm`: the item's owner and the programs on its access list; any other program is asked
///   about through the prompter (`once`, `always`, `deny`), and refused when nobody answers.
/// - `strict`: the owner and the access list; any other program is refused.
///
/// An item from before owners existed has none, so only the access list and the policy decide.
/// A caller whose program could not be told is no item's owner and on no list.
package struct AccessGate: Sendable {
    /// What the policy, the owner and the access list say before anyone is asked.
    package enum Verdict: Equatable, Sendable {
        /// Allowed, and why (``AuditEntry/Decision/owner``, ``AuditEntry/Decision/allowed`` or
        /// ``AuditEntry/Decision/open``).
        case allowed(AuditEntry.Decision)
        /// The person decides (`confirm`).
        case ask
        /// Refused without asking (`strict`).
        case refused
    }

    /// The `--prompter` that asks the person; `nil`: nobody can be asked, so `confirm` refuses.
    package let prompter: PrompterCommand?
    /// How the callers reach the vault, for the log.
    package let frontDoor: AuditEntry.FrontDoor
    /// The gate of a share's socket: every item that reaches it the share's grant covers, which
    /// is the person's decision, so each is allowed as ``AuditEntry/Decision/shared`` whatever
    /// the policy, owner and access list say (docs/security.md, "Sharing with sandboxes and other hosts").
    package let grantedByShare: Bool
    /// The clock the log's times come from.
    private let now: @Sendable () -> Date

    package init(
        prompter: PrompterCommand?, frontDoor: AuditEntry.FrontDoor, grantedByShare: Bool = false, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.prompter = prompter
        self.frontDoor = frontDoor
        self.grantedByShare = grantedByShare
        self.now = now
    }

    /// The verdict for `program` on an item with `access`, under `policy`. Pure: asks nobody,
    /// logs nothing.
    package static func verdict(policy: AccessPolicy, access: ItemAccess, program: Program?) -> Verdict {
        if access.isOwned(by: program) { return .allowed(.owner) }
        if let program, access.allowed.contains(where: { $0.matches(program) }) { return .allowed(.allowed) }
        switch policy {
        case .open: return .allowed(.open)
        case .confirm: return .ask
        case .strict: return .refused
        }
    }

    /// This gate's verdict: ``verdict(policy:access:program:)``, or `shared` for a share's gate.
    func verdict(policy: AccessPolicy, access: ItemAccess, program: Program?) -> Verdict {
        grantedByShare ? .allowed(.shared) : Self.verdict(policy: policy, access: access, program: program)
    }

    /// What ``authorize(_:item:in:at:by:cancellation:mayAsk:)`` found.
    package enum Authorization: Sendable {
        /// No such item: nothing to allow (a write creates it, with the caller as its owner).
        case absent
        /// Allowed: the item, as read for the decision.
        case allowed(Item)
        /// The person would have to be asked and `mayAsk` was `false`: nothing decided or
        /// logged. The caller asks again where waiting for the answer holds up nobody.
        case mustAsk
    }

    /// Lets `program` do `action` (read, write or delete) on the item `id` of `vault` (held at
    /// `vaultPath`), or throws ``CofferError/accessDenied(program:)``. Under `confirm` the
    /// prompter asks (unless `mayAsk` is `false`: then ``Authorization/mustAsk``); `always` adds
    /// the program to the item's access list. An absent item needs no permission (a write
    /// creates it, with the caller as its owner). The decision, allowed or not, goes to the
    /// audit log; a log that cannot be written fails the request, so that nothing is read
    /// unrecorded.
    ///
    /// `cancellation` ends a running prompter (the client left).
    @discardableResult
    package func authorize(
        _ action: AuditEntry.Action, item id: ItemID, in vault: Vault, at vaultPath: String, by program: Program?,
        cancellation: PrompterCommand.Run? = nil, mayAsk: Bool = true
    ) throws(CofferError) -> Authorization {
        try refuseBrokered(action, id, in: vault, by: program)
        // Decided without asking: the read, the decision and its entry are one transaction.
        var allowed = true
        let read = try vault.readAudited(id) { access, policy in
            switch verdict(policy: policy, access: access, program: program) {
            case .allowed(let reason):
                return entry(action, item: id, by: program, decision: reason)
            case .refused:
                allowed = false
                return entry(action, item: id, by: program, decision: .denied)
            case .ask:
                return nil
            }
        }
        let item: Item
        switch read {
        case .absent:
            return .absent
        case .recorded(let read):
            item = read
        case .undecided(let read, let access):
            guard let (decision, asked) = try decide(item: read.attributes, access: access, in: vault, at: vaultPath, by: program, cancellation: cancellation, mayAsk: mayAsk)
            else { return .mustAsk }
            try record(action, item: id, in: vault, by: program, decision: decision)
            (item, allowed) = (read, asked)
        }
        guard allowed else { throw .accessDenied(program: Self.name(of: program)) }
        return .allowed(item)
    }

    /// The decision on `program` using the item `item` with `access`, asking the person under
    /// `confirm` (`always` puts the program on the item's access list); `nil` when the person
    /// would have to be asked and `mayAsk` is `false`. Logs nothing.
    func decide(
        item: ItemAttributes, access: ItemAccess, in vault: Vault, at vaultPath: String, by program: Program?,
        cancellation: PrompterCommand.Run?, mayAsk: Bool
    ) throws(CofferError) -> (decision: AuditEntry.Decision, allowed: Bool)? {
        switch verdict(policy: try vault.accessPolicy(), access: access, program: program) {
        case .allowed(let reason):
            return (reason, true)
        case .refused:
            return (.denied, false)
        case .ask:
            guard mayAsk else { return nil }
            switch ask(program: program, item: item, vaultPath: vaultPath, cancellation: cancellation) {
            case .once:
                return (.once, true)
            case .always:
                if let program { try vault.grant(program, to: item.id) }
                return (.always, true)
            case .deny(let denial):
                return (Self.decision(for: denial), false)
            }
        }
    }

    /// Refuses, logged, any item request on an item of a login the agent brokers
    /// (``BrokeredSessions``): its refresh token never leaves the agent.
    func refuseBrokered(_ action: AuditEntry.Action, _ id: ItemID, in vault: Vault, by program: Program?) throws(CofferError) {
        guard BrokeredSessions.isBrokered(id) else { return }
        try record(action, item: id, in: vault, by: program, decision: .denied)
        throw .accessDenied(program: Self.name(of: program))
    }

    /// Records a decision made elsewhere (a listing, a new item, a grant) in the vault's log.
    package func record(
        _ action: AuditEntry.Action, item id: ItemID? = nil, in vault: Vault, by program: Program?, decision: AuditEntry.Decision
    ) throws(CofferError) {
        try vault.appendAudit(entry(action, item: id, by: program, decision: decision))
    }

    /// The audit entry of a decision this gate makes now.
    private func entry(_ action: AuditEntry.Action, item id: ItemID?, by program: Program?, decision: AuditEntry.Decision) -> AuditEntry {
        AuditEntry(time: now(), program: program, frontDoor: frontDoor, action: action, item: id, decision: decision)
    }

    /// How a program is named to the person and in errors: its executable's path (and its
    /// script), as the kernel gave them, never interpreted.
    package static func name(of program: Program?) -> String {
        guard let program else { return "an unidentified program" }
        return program.description
    }

    private func ask(program: Program?, item: ItemAttributes, vaultPath: String, cancellation: PrompterCommand.Run?) -> AccessAnswer {
        guard let prompter else { return .deny(.noPrompter) }
        let question = AccessQuestion(
            program: program.map { Program.printable($0.executablePath) } ?? Self.name(of: nil),
            item: AccessQuestion.itemName(label: item.label, service: item.id.service, account: item.id.account),
            vault: vaultPath, programDescription: Self.name(of: program))
        let answer = prompter.ask(access: question, run: cancellation)
        // A program that cannot be told cannot be put on a list: `always` counts as `once`.
        if program == nil, answer == .always { return .once }
        return answer
    }

    private static func decision(for denial: AccessDenial) -> AuditEntry.Decision {
        switch denial {
        case .noPrompter: .noPrompter
        case .timedOut: .timedOut
        case .refused, .badAnswer, .failed, .cancelled: .denied
        }
    }
}
