import ArgumentParser
import Coffer
import Foundation

struct Slots: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add or remove key slots.",
        subcommands: [ListSlots.self, AddSlot.self, RemoveSlot.self],
        defaultSubcommand: ListSlots.self)

    @ParentCommand var root: CofferCommand

    struct ListSlots: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List key slots (needs no passphrase).")
        @ParentCommand var slots: Slots

        func run() throws {
            let formatter = ISO8601DateFormatter()
            for slot in try Vault.open(at: try slots.root.vault.url()).keySlots() {
                let kind = switch slot.kind {
                case .passphrase(let cost): "passphrase\targon2id ops=\(cost.operations) mem=\(cost.memoryBytes >> 20)MiB"
                case .keyFile: "keyfile\t-"
                case .key: "key\t-"
                case .secretService: "secret-service\t-"
                case .other(let name): "\(name)\t-"
                }
                print("\(slot.id)\t\(kind)\t\(formatter.string(from: slot.created))")
            }
        }
    }

    struct AddSlot: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a passphrase or key-file slot.")
        @ParentCommand var slots: Slots

        @Option(name: .customLong("add-keyfile"), help: ArgumentHelp("Add a key-file slot; the file is generated if missing.", valueName: "path"))
        var keyFile: String?
        @Flag(name: .customLong("add-passphrase"), help: "Add a passphrase slot.")
        var passphrase = false
        @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
        var newPassphraseFD: Int32?
        @Option(help: "Argon2id cost of a new passphrase slot.")
        var kdf: PassphraseCostName = .moderate

        func validate() throws {
            guard (keyFile != nil) != passphrase else { throw ValidationError("give exactly one of --add-keyfile or --add-passphrase") }
        }

        func run() throws {
            let options = slots.root.vault
            let vault = try Vault.open(at: try options.url(), configuration: Vault.Configuration(passphraseCost: kdf.cost))
            try vault.unlock(with: try options.credential())
            let credential: VaultCredential
            if let keyFile {
                let url = URL(fileURLWithPath: keyFile)
                if !FileManager.default.fileExists(atPath: keyFile) { try KeyFile.generate(at: url) }
                credential = .keyFile(url)
            } else {
                credential = .passphrase(try Passphrase.readNew(fd: newPassphraseFD))
            }
            print("added \(try vault.addKeySlot(credential))")
        }
    }

    struct RemoveSlot: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key slot (not the last).")
        @ParentCommand var slots: Slots
        @Argument(help: "The slot number, from 'coffer slots'.") var id: Int

        func run() throws {
            try slots.root.vault.open().removeKeySlot(id: id)
            print("removed slot \(id)")
        }
    }
}
