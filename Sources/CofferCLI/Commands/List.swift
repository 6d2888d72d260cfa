import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials

struct List: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "List items (never their secrets).",
        discussion: """
            Text output is one item per line: class, service, account and label, separated by \
            tabs. Control characters and backslashes in names are escaped (\\n, \\t, \\x1b, \\\\), \
            so every item is one line. --json keeps the names exactly.
            """)

    @ParentCommand var root: CofferCommand

    @Option(help: "Only items of this service.") var service: String?
    @Flag(help: "Print a JSON array.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let store = try root.store()
        let items = try store.items(matching: ItemQuery(service: service))
        if json {
            try JSONOutput.write(items.map(ItemSummary.init))
        } else {
            try StandardStreams.write(Array(ItemListing.text(items).utf8))
        }
        if let vault = store as? Vault, case let unreadable = try vault.unreadableRecordCount(), unreadable > 0 {
            Terminal.printError("warning: \(unreadable) record(s) failed the integrity check and are not listed; run 'coffer check'")
        }
    }
}
