import ArgumentParser
import Coffer

struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a passphrase.",
        discussion: "The current passphrase comes as usual; the new one from --new-passphrase-fd, $COFFER_NEW_PASSPHRASE, or the terminal (twice).")

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
    var newPassphraseFD: Int32?

    @Option(help: "Argon2id cost of the new passphrase: interactive, moderate or sensitive.")
    var kdf: PassphraseCostName = .moderate

    func run() throws {
        let vault = try Vault.open(at: try root.vault.url(), configuration: Vault.Configuration(passphraseCost: kdf.cost))
        let current = try Passphrase.read(
            fd: root.vault.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: "Current passphrase: ")
        try vault.changePassphrase(from: current, to: try Passphrase.readNew(fd: newPassphraseFD))
        print("passphrase changed")
    }
}
