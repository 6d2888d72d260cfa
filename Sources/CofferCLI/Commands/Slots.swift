import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials

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

    /// One slot as `coffer slots` prints it: id, kind, what its kind adds (such as KDF
    /// parameters, or a systemd-creds slot's key source, PCRs and TPM2 device; `-` when
    /// nothing) and creation time, tab-separated.
    static func line(for slot: SlotSummary) -> String {
        "\(slot.id)\t\(TerminalText.escaped(slot.kind))\t\(slot.details?.text ?? "-")\t\(Date.ISO8601FormatStyle().format(slot.created))"
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

        @OptionGroup var keyFile: KeyFileSlotAddition
        @OptionGroup var passphrase: PassphraseSlotAddition
        @OptionGroup var secretService: SecretServiceSlotAddition
        @OptionGroup var systemdCreds: SystemdCredsSlotAddition

        /// One group for each kind the command adds, in the order the usage error names them.
        private var kinds: [any SlotAddition] { [keyFile, passphrase, secretService, systemdCreds] }

        var vaultOptions: VaultOptions? { slots.root.vault }
        var ownDescriptors: [Int32] { kinds.flatMap(\.descriptors) }

        func validate() throws {
            guard kinds.filter(\.isRequested).count == 1 else {
                let options = kinds.map { type(of: $0).option }
                throw ValidationError("give exactly one of \(options.dropLast().joined(separator: ", ")) or \(options.last ?? "")")
            }
        }

        func run() throws {
            let vault = try slots.root.openVault()
            guard let kind = kinds.first(where: \.isRequested) else { throw CLIError.usage("name the kind of slot to add") }
            let credential = try kind.credential(slots.root.storeOptions)
            let before = try vault.keySlots()
            let slot = try vault.addKeySlot(credential, cost: kind.cost)
            kind.reportAdded(before: before)
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
