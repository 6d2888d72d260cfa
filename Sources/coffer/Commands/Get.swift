import ArgumentParser
import Coffer
import Foundation

struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a secret to stdout, exactly as stored.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    func run() throws {
        guard let secret = try root.store().secret(for: item.id) else { throw CofferError.itemNotFound }
        FileHandle.standardOutput.write(secret)
    }
}
