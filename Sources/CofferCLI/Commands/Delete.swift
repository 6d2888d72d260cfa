import ArgumentParser
import Coffer
import CofferCommandLine

struct Delete: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(abstract: "Delete an item.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        guard try root.store().remove(item.id) else { throw CofferError.itemNotFound }
    }
}
