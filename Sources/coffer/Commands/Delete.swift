import ArgumentParser
import Coffer

struct Delete: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(abstract: "Delete an item.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    var cofferRoot: CofferCommand { root }

    func run() throws {
        guard try root.store().remove(item.id) else { throw CofferError.itemNotFound }
    }
}
