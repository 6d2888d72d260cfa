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
            for slot in try Vault.open(at: try slots.root.vault.url()).keySlots() {
                print(Slots.line(for: slot))
            }
        }
    }

    /// One slot as `coffer slots` prints it: id, kind, KDF parameters and creation time, tab-separated.
    static func line(for slot: KeySlot) -> String {
        let kind = switch slot.kind {
        case .passphrase(let cost): "passphrase\targon2id ops=\(cost.operations) mem=\(cost.memoryBytes >> 20)MiB"
        case .keyFile: "keyfile\t-"
        case .key: "key\t-"
        case .secretService: "secret-service\t-"
        case .other(let name): "\(name)\t-"
        }
        return "\(slot.id)\t\(kind)\t\(ISO8601DateFormatter().string(from: slot.created))"
    }

    struct AddSlot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a passphrase, key-file or Secret Service slot.")
        @ParentCommand var slots: Slots

        @Option(name: .customLong("add-keyfile"), help: ArgumentHelp("Add a key-file slot; the file is generated if missing.", valueName: "path"))
        var keyFile: String?
        @Flag(name: .customLong("add-passphrase"), help: "Add a passphrase slot.")
        var passphrase = false
        @Flag(name: .customLong("add-secret-service"), help: "Add a Secret Service slot: the vault then opens with no prompt while your keyring is unlocked.")
        var secretService = false
        @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
        var newPassphraseFD: Int32?
        @Option(help: "Argon2id cost of a new passphrase slot.")
        var kdf: PassphraseCostName = .moderate

        func validate() throws {
            guard [keyFile != nil, passphrase, secretService].filter({ $0 }).count == 1 else {
                throw ValidationError("give exactly one of --add-keyfile, --add-passphrase or --add-secret-service")
            }
        }

        func run() throws {
            let vault = try slots.root.openVault(configuration: Vault.Configuration(passphraseCost: kdf.cost))
            let credential: VaultCredential
            if secretService {
                credential = .secretService(slots.root.storeOptions.secretService)
            } else if let keyFile {
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
            try slots.root.openVault().removeKeySlot(id: id, secretService: slots.root.storeOptions.secretService)
            print("removed slot \(id)")
        }
    }
}
