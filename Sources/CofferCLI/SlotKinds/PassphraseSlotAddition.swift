import ArgumentParser
import Coffer
import CofferCommandLine

/// `slots add --add-passphrase [--new-passphrase-fd N] [--kdf COST]`.
struct PassphraseSlotAddition: SlotAddition {
    static let option = "--add-passphrase"

    @Flag(name: .customLong("add-passphrase"), help: "Add a passphrase slot.")
    var isRequested = false
    @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
    var newPassphraseFD: Int32?
    @Option(help: "Argon2id cost of a new passphrase slot: interactive, moderate or sensitive (default: the strongest slot's).")
    var kdf: PassphraseCostName?

    var descriptors: [Int32] { [newPassphraseFD].compactMap { $0 } }
    var cost: PassphraseCost? { kdf?.cost }

    func credential(_ store: StoreOptions) throws -> VaultCredential {
        try Passphrase.newCredential(fd: newPassphraseFD)
    }

    /// A `--kdf` below the vault's strongest passphrase slot is reported.
    func reportAdded(before: [KeySlot]) {
        if let kdf { KDFNotice.reportIfLowered(to: kdf.cost, from: before) }
    }
}
