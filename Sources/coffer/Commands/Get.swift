import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

struct Get: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(abstract: "Write a secret to stdout, exactly as stored.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        guard let secret = try root.store().secret(for: item.id) else { throw CofferError.itemNotFound }
        try StandardStreams.write(secret)
    }
}
