import Coffer
import CofferAgent
import CofferCommandLine
import FoundationEssentials

/// The vault as `coffer access` and `coffer set --allow` use it: opened and unlocked in this
/// process with one of its own credentials, never through the agent, so that no program the
/// agent lets read an item can change who reads it (docs/security.md, "Per-application access").
struct AccessVault {
    let vault: Vault
    /// What the audit log records of the changes made here.
    private let log = AccessGate(prompter: nil, frontDoor: .cli)

    /// Opens the vault of `root`'s options as ``CofferRoot/openVault(configuration:)`` does; a
    /// usage error with `--backend secret-service`, which keeps no access lists.
    init(_ root: CofferCommand) throws {
        guard try root.storeOptions.selectedBackend() == .vault else {
            throw CLIError.usage("access lists, the policy and the audit log belong to a vault, not to --backend secret-service")
        }
        vault = try root.openVault()
    }

    /// Grants or revokes (`apply`) `program`'s access to `item`, and logs it when it changed the
    /// list. Returns whether it did.
    func change(_ action: AuditEntry.Action, of item: ItemID, for program: Program, _ apply: (Vault) throws -> Bool) throws -> Bool {
        let changed = try apply(vault)
        if changed { try record(action, item: item, program: program) }
        return changed
    }

    /// Logs a change made with the vault's credential: a grant or revoke of `program` on `item`,
    /// or a policy change by this program.
    func record(_ action: AuditEntry.Action, item: ItemID? = nil, program: Program?) throws {
        try log.record(action, item: item, in: vault, by: program, decision: .credential)
    }
}
