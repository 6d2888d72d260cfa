import ArgumentParser
import Coffer
import CofferCommandLine

struct Passwd: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Change a passphrase.",
        discussion: """
            The current passphrase comes as usual; the new one from --new-passphrase-fd, \
            $COFFER_NEW_PASSPHRASE, or the terminal (twice). The slot keeps its Argon2id cost \
            unless --kdf names another; a lower one is reported on stderr.
            """)

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
    var newPassphraseFD: Int32?

    @Option(help: "Argon2id cost of the new passphrase: interactive, moderate or sensitive (default: the slot's own).")
    var kdf: PassphraseCostName?

    var vaultOptions: VaultOptions? { root.vault }
    var ownDescriptors: [Int32] { [newPassphraseFD].compactMap { $0 } }

    func run() throws {
        let vault = try Vault.open(at: try root.vault.url())
        let current = try Passphrase.credential(
            fd: root.vault.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: "Current passphrase: ")
        let new = try Passphrase.newCredential(fd: newPassphraseFD)
        let before = try vault.keySlots()
        try vault.changePassphrase(from: current, to: new, cost: kdf?.cost)
        if let kdf { KDFNotice.reportIfLowered(to: kdf.cost, from: before) }
        try StandardStreams.printLine("passphrase changed")
    }
}
