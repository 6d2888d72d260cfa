import ArgumentParser
import Coffer

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an item.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    func run() throws {
        guard try root.store().remove(item.id) else { throw CofferError.itemNotFound }
    }
}
