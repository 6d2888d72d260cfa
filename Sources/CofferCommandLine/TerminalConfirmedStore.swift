import Coffer
import CofferBase
import FoundationEssentials

/// The vault through the agent, for a command a person runs (`coffer get` and the other item
/// commands). Where the vault's access policy keeps this program from an item, the person
/// confirms with the vault's passphrase on the terminal, as sudo asks again: the command then
/// opens the vault itself, does what was asked, and logs it in the vault's audit log (front door
/// `cli`, decision `once`). With no terminal (a script), the refusal stands: exit status 13 and
/// the error naming the program and `coffer access grant`, so that a script cannot use `coffer`
/// to go around the policy. A passphrase in `$COFFER_PASSPHRASE` or `--passphrase-fd` is no
/// confirmation: it may have been set once for a whole session.
struct TerminalConfirmedStore: CredentialStore {
    let agent: AgentStore
    /// The vault's file, opened here once the person has confirmed.
    let vault: URL

    func set(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        try confirming(.write, id) { () throws(CofferError) in try agent.set(secret, for: id, options: options) } directly: { vault throws(CofferError) in
            try vault.set(secret, for: id, options: options)
        }
    }

    func item(for id: ItemID) throws(CofferError) -> Item? {
        try confirming(.read, id) { () throws(CofferError) in try agent.item(for: id) } directly: { vault throws(CofferError) in try vault.item(for: id) }
    }

    func secret(for id: ItemID) throws(CofferError) -> Data? {
        try confirming(.read, id) { () throws(CofferError) in try agent.secret(for: id) } directly: { vault throws(CofferError) in try vault.secret(for: id) }
    }

    @discardableResult
    func remove(_ id: ItemID) throws(CofferError) -> Bool {
        try confirming(.delete, id) { () throws(CofferError) in try agent.remove(id) } directly: { vault throws(CofferError) in try vault.remove(id) }
    }

    func items(matching query: ItemQuery) throws(CofferError) -> [ItemAttributes] {
        try agent.items(matching: query)
    }

    @discardableResult
    func removeAll(matching query: ItemQuery) throws(CofferError) -> Int {
        try confirming(.delete, nil) { () throws(CofferError) in try agent.removeAll(matching: query) } directly: { vault throws(CofferError) in
            try vault.removeAll(matching: query)
        }
    }

    /// `throughAgent`, or, when the agent refuses this program and the person confirms on the
    /// terminal, `directly` on the vault opened with the passphrase typed.
    private func confirming<Result>(
        _ action: AuditEntry.Action, _ id: ItemID?, _ throughAgent: () throws(CofferError) -> Result,
        directly: (Vault) throws(CofferError) -> Result
    ) throws(CofferError) -> Result {
        do {
            return try throughAgent()
        } catch .accessDenied(let program) {
            let what = id.map { " to \(TerminalText.escaped($0.service)) (account \(TerminalText.escaped($0.account)))" } ?? ""
            guard Terminal.writeToTerminal(
                "The vault's access policy keeps \(TerminalText.escaped(program)) from this item. Type the vault's passphrase to allow this \(action.rawValue)\(what) once.\n"),
                let passphrase = Terminal.readHidden(prompt: "Passphrase: ")
            else { throw .accessDenied(program: program) }
            let opened = try Vault.open(at: vault)
            defer { opened.lock() }
            try opened.unlock(with: try .passphrase(utf8: passphrase))
            try opened.appendAudit(AuditEntry(time: Date(), program: Program.current(), frontDoor: .cli, action: action, item: id, decision: .once))
            return try directly(opened)
        }
    }
}
