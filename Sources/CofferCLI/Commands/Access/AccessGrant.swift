import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

/// `coffer access grant SERVICE ACCOUNT PROGRAM`: puts a program on an item's access list.
struct AccessGrant: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Allow a program to read an item without being asked.",
        discussion: """
            PROGRAM is the executable's absolute path. --pin records the SHA-256 of the executable (and \
            of the --script file), so that a changed file no longer matches; without it, any file at that \
            path does. A grant replaces the entry for the same program (executable, script, sandbox and \
            service), so granting again with or without --pin changes the pin. Needs the vault's \
            credential, never the agent; the grant is logged in the audit log.
            """)

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector
    @OptionGroup var program: ProgramSelector
    @Flag(help: "Pin the executable's (and the script's) SHA-256: a modified file no longer matches.") var pin = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let granted = try program.program(pinned: pin, mustExist: true)
        let access = try AccessVault(root)
        let changed = try access.change(.grant, of: item.id, for: granted) { try $0.grant(granted, to: item.id) }
        let name = item.escapedName
        try StandardStreams.printLine(changed ? "allowed \(granted) to read \(name)" : "\(granted) already reads \(name)")
        let changeable = ProgramPaths.filesUserCanModify(granted)
        if !pin, !changeable.isEmpty {
            Terminal.printError("note: your user can change \(changeable.joined(separator: " and ")); with --pin, a changed file loses access")
        }
    }
}
