import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

struct Slots: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add or remove key slots.",
        subcommands: [ListSlots.self, AddSlot.self, RemoveSlot.self],
        defaultSubcommand: ListSlots.self)

    @ParentCommand var root: CofferCommand

    struct ListSlots: ParsableCommand, ReadsDescriptors {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List key slots (needs no passphrase).")
        @ParentCommand var slots: Slots
        @Flag(help: "Print a JSON array: id, kind, kdf (algorithm, operations, memoryBytes), systemdCreds (keySource, pcrs, tpm2Device) and created.")
        var json = false

        var vaultOptions: VaultOptions? { slots.root.vault }

        func run() throws {
            let keySlots = try Vault.open(at: try slots.root.vault.url()).keySlots().map(SlotSummary.init)
            if json { return try JSONOutput.write(keySlots) }
            try StandardStreams.write(Array(keySlots.map { Slots.line(for: $0) + "\n" }.joined().utf8))
        }
    }

    /// One slot as `coffer slots` prints it: id, kind, KDF parameters (or a systemd-creds slot's
    /// key source, PCRs and TPM2 device) and creation time, tab-separated.
    static func line(for slot: SlotSummary) -> String {
        let kdf = slot.kdf.map { "argon2id ops=\($0.operations) mem=\($0.memoryBytes >> 20)MiB" }
            ?? slot.systemdCreds.map { binding in
                "key=\(binding.keySource)" + (binding.pcrs.isEmpty ? "" : " pcrs=\(binding.pcrs.map(String.init).joined(separator: "+"))")
                    + (binding.tpm2Device.map { " device=\(TerminalText.escaped($0))" } ?? "")
            }
            ?? "-"
        return "\(slot.id)\t\(TerminalText.escaped(slot.kind))\t\(kdf)\t\(ISO8601DateFormatter().string(from: slot.created))"
    }

    struct AddSlot: ParsableCommand, ReadsDescriptors {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a passphrase, key-file, Secret Service or systemd-creds slot.",
            discussion: """
                A new passphrase slot gets the highest Argon2id cost among the vault's passphrase \
                slots (MODERATE when there are none) unless --kdf names another; a lower one is \
                reported on stderr. A systemd-creds slot seals a random key with systemd-creds \
                (the host key, a TPM2 or both), named coffer-<vault id>-<slot id>; the vault then \
                opens on this machine with no person (--unlock systemd-creds).
                """)
        @ParentCommand var slots: Slots

        @Option(name: .customLong("add-keyfile"), help: ArgumentHelp("Add a key-file slot; the file is generated if missing.", valueName: "path"))
        var keyFile: String?
        @Flag(name: .customLong("add-passphrase"), help: "Add a passphrase slot.")
        var passphrase = false
        @Flag(name: .customLong("add-secret-service"), help: "Add a Secret Service slot: the vault then opens with no prompt while your keyring is unlocked.")
        var secretService = false
        @Flag(name: .customLong("add-systemd-creds"), help: "Add a systemd-creds slot: the vault then opens on this machine (host key, TPM2) with no person.")
        var systemdCreds = false
        @OptionGroup var systemdCredsOptions: SystemdCredsSlotOptions
        @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
        var newPassphraseFD: Int32?
        @Option(help: "Argon2id cost of a new passphrase slot: interactive, moderate or sensitive (default: the strongest slot's).")
        var kdf: PassphraseCostName?

        var vaultOptions: VaultOptions? { slots.root.vault }
        var ownDescriptors: [Int32] { [newPassphraseFD].compactMap { $0 } }

        func validate() throws {
            guard [keyFile != nil, passphrase, secretService, systemdCreds].filter({ $0 }).count == 1 else {
                throw ValidationError("give exactly one of --add-keyfile, --add-passphrase, --add-secret-service or --add-systemd-creds")
            }
        }

        func run() throws {
            let vault = try slots.root.openVault()
            let credential: VaultCredential
            if secretService {
                credential = .secretService(slots.root.storeOptions.secretService)
            } else if systemdCreds {
                credential = .systemdCredential(try systemdCredsOptions.options(slots.root.storeOptions))
            } else if let keyFile {
                let url = URL(fileURLWithPath: keyFile)
                if !FileManager.default.fileExists(atPath: keyFile) { try KeyFile.generate(at: url) }
                credential = .keyFile(url)
            } else {
                credential = try Passphrase.newCredential(fd: newPassphraseFD)
            }
            let before = try vault.keySlots()
            let slot = try vault.addKeySlot(credential, cost: passphrase ? kdf?.cost : nil)
            if passphrase, let kdf { KDFNotice.reportIfLowered(to: kdf.cost, from: before) }
            try StandardStreams.printLine("added \(slot)")
        }
    }

    struct RemoveSlot: ParsableCommand, ReadsDescriptors {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key slot (not the last).")
        @ParentCommand var slots: Slots
        @Argument(help: "The slot number, from 'coffer slots'.") var id: Int

        var vaultOptions: VaultOptions? { slots.root.vault }

        func run() throws {
            try slots.root.openVault().removeKeySlot(id: id, secretService: slots.root.storeOptions.secretService)
            try StandardStreams.printLine("removed slot \(id)")
        }
    }
}
