import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

/// `coffer access revoke SERVICE ACCOUNT PROGRAM`: takes a program off an item's access list.
struct AccessRevoke: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Take a program off an item's access list.",
        discussion: """
            Removes every entry for the program (the same executable, script, sandbox and service), \
            whatever its pins. The item's owner is not on the list and keeps reading it. Needs the \
            vault's credential, never the agent; the revoke is logged in the audit log.
            """)

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector
    @OptionGroup var program: ProgramSelector

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let revoked = try program.program(pinned: false, mustExist: false)
        let access = try AccessVault(root)
        let changed = try access.change(.revoke, of: item.id, for: revoked) { try $0.revoke(revoked, from: item.id) }
        let name = item.escapedName
        try StandardStreams.printLine(changed ? "\(revoked) no longer reads \(name)" : "\(revoked) was not on the access list of \(name)")
        if let owner = try access.vault.access(for: item.id)?.owner, owner.isSameProgram(as: revoked) {
            Terminal.printError("note: \(owner) owns \(name) and keeps reading it")
        }
    }
}
