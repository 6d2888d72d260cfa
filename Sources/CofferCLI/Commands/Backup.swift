import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials

struct Backup: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Copy the vault, consistently, to a new file that opens with the same credentials.",
        discussion: """
            Uses SQLite's online backup API: the copy is the vault at one moment, even while \
            other processes write to it. Needs no passphrase. The copy is 0600, its folder is \
            created 0700 when missing (an existing folder must be private, as a vault's), and an \
            existing file is never overwritten (exit \(ExitStatus.alreadyExists.rawValue)).
            """)

    @ParentCommand var root: CofferCommand
    @Argument(help: ArgumentHelp("Where the copy goes.", valueName: "path")) var path: String

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let destination = URL(fileURLWithPath: path)
        try Vault.open(at: try root.vault.url()).backup(to: destination)
        try StandardStreams.printLine("backed up to \(TerminalText.escaped(destination.standardizedFileURL.path))")
    }
}
