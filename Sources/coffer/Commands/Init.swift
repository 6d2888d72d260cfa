import ArgumentParser
import Coffer
import Foundation

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a vault with a passphrase slot, or a key-file slot with --keyfile.",
        discussion: "With --keyfile PATH, the key file is generated (32 random bytes, mode 0600) unless it exists.")

    @ParentCommand var root: CofferCommand

    @Option(help: "Argon2id cost of the passphrase slot: interactive, moderate or sensitive.")
    var kdf: PassphraseCostName = .moderate

    func run() throws {
        let url = try root.vault.url()
        let credential: VaultCredential
        if let keyFile = root.vault.keyFileURL {
            if !FileManager.default.fileExists(atPath: keyFile.path) { try KeyFile.generate(at: keyFile) }
            credential = .keyFile(keyFile)
        } else {
            let passphrase = try Passphrase.read(
                fd: root.vault.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: "New passphrase: ", confirm: true)
            guard !passphrase.isEmpty else { throw CLIError.usage("the passphrase is empty") }
            credential = .passphrase(passphrase)
        }
        let vault = try Vault.create(at: url, with: credential, configuration: Vault.Configuration(passphraseCost: kdf.cost))
        print("created \(vault.url.path)")
    }
}

/// The named Argon2id costs the CLI accepts.
enum PassphraseCostName: String, ExpressibleByArgument, CaseIterable {
    case interactive, moderate, sensitive

    var cost: PassphraseCost {
        switch self {
        case .interactive: .interactive
        case .moderate: .moderate
        case .sensitive: .sensitive
        }
    }
}
