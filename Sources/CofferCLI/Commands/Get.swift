import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

struct Get: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Write a secret to stdout, exactly as stored.",
        discussion: "With --json: the item's attributes (as `list --json` prints them) and `secret`, its bytes in base64.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector
    @Flag(help: "Print the item's attributes and its secret (base64) as JSON.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let store = try root.store()
        if json {
            guard let found = try store.item(for: item.id) else { throw CofferError.itemNotFound }
            return try JSONOutput.write(SecretItemJSON(found))
        }
        guard let secret = try store.secret(for: item.id) else { throw CofferError.itemNotFound }
        try StandardStreams.write(secret)
    }
}
