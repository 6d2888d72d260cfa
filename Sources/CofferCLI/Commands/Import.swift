import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

struct Import: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy Secret Service items into the vault (never deleting them there).",
        discussion: """
            Copies the default collection's items that secret-tool, python-keyring and Coffer's \
            secret-service backend read (service and username attributes; network passwords by \
            server and user), with label, comment, attributes and expiry. Running it again copies \
            nothing: an item the vault holds with the same secret is "unchanged"; one it holds \
            with another secret is a "conflict" and keeps the vault's (--replace takes the Secret \
            Service's); expired items are skipped. Prints one line per item (outcome, class, \
            service, account, tab-separated), then a summary. --json prints an array of \
            {class, service, account, outcome}.
            """)

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case secretService = "secret-service"
    }

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("from"), help: "Where the items come from: secret-service.") var source: Source
    @Option(help: "Only items of this service.") var service: String?
    @Flag(help: "Where the vault holds another secret, take the Secret Service's.") var replace = false
    @Flag(help: "Print a JSON array.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let items = try SecretServiceStore(configuration: root.storeOptions.secretService).itemsWithSecrets(matching: ItemQuery(service: service))
        let report = try ItemImport.copy(items, into: try root.vaultStore(), replacing: replace)
        if json { return try JSONOutput.write(report.entries.map(ImportedItemJSON.init)) }
        let lines = report.entries.map { entry in
            let kind = ItemListing.className(entry.id.itemClass)
            return [entry.outcome.rawValue, kind, entry.id.service, entry.id.account].map(TerminalText.escaped).joined(separator: "\t")
        }
        let summary = ItemImport.Outcome.allCases.map { "\(report.count($0)) \($0.rawValue)" }.joined(separator: ", ")
        try StandardStreams.write(Array((lines + [summary]).map { $0 + "\n" }.joined().utf8))
    }
}
