import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials

struct Init: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Create a vault with a passphrase slot, or a key-file slot with --keyfile.",
        discussion: """
            With --keyfile PATH, the key file is generated (32 random bytes, mode 0600) unless it exists.
            With --secret-service-slot, a Secret Service slot is added too, so the vault opens with no
            prompt while your keyring is unlocked; the passphrase (or key file) stays as the way back in.
            With --systemd-creds-slot, a systemd-creds slot is added too (--with-key, --tpm2-device,
            --tpm2-pcrs as for `slots add`), so the vault opens on this machine with no person; the
            passphrase (or key file) stays as the way back in.
            """)

    @ParentCommand var root: CofferCommand

    @Option(help: "Argon2id cost of the passphrase slot: interactive, moderate or sensitive.")
    var kdf: PassphraseCostName = .moderate

    @Flag(name: .customLong("secret-service-slot"), help: "Also add a Secret Service slot.")
    var secretServiceSlot = false

    @Flag(name: .customLong("systemd-creds-slot"), help: "Also add a systemd-creds slot (host key, TPM2).")
    var systemdCredsSlot = false
    @OptionGroup var systemdCredsOptions: SystemdCredsSlotOptions

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let url = try root.vault.url()
        let secretService = root.storeOptions.secretService
        // Fail before creating anything when the Secret Service cannot take the slot's key.
        if secretServiceSlot { try Self.requireAvailable(try SecretService.status(timeout: secretService.timeout)) }
        let machineSlot: VaultCredential? = systemdCredsSlot ? .systemdCredential(try systemdCredsOptions.options(root.storeOptions)) : nil
        let credential: VaultCredential
        if let keyFile = root.vault.keyFileURL {
            if !FileManager.default.fileExists(atPath: keyFile.path) { try KeyFile.generate(at: keyFile) }
            credential = .keyFile(keyFile)
        } else {
            credential = try Passphrase.credential(
                fd: root.vault.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: "New passphrase: ", confirm: true)
        }
        let vault = try Vault.create(at: url, with: credential, configuration: Vault.Configuration(passphraseCost: kdf.cost))
        // The systemd-creds slot first: its credential lives in the vault, so removing the vault
        // after a failure leaves nothing behind, where a Secret Service key would stay.
        let extraSlots = (machineSlot.map { [$0] } ?? []) + (secretServiceSlot ? [VaultCredential.secretService(secretService)] : [])
        var added: [KeySlot] = []
        do {
            for extra in extraSlots { added.append(try vault.addKeySlot(extra)) }
        } catch {
            // The vault is new and empty: remove it rather than leave one without the slots asked for.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: vault.url.path + suffix) }
            throw error
        }
        let with = added.isEmpty ? "" : " with " + added.map(\.description).joined(separator: " and ")
        try StandardStreams.printLine("created \(TerminalText.escaped(vault.url.path))\(with)")
    }

    /// Throws the error an operation would meet when the Secret Service is not available.
    static func requireAvailable(_ status: SecretService.Status) throws(CofferError) {
        switch status {
        case .available: return
        case .locked: throw .locked
        case .noDaemon, .noSessionBus: throw .secretServiceUnavailable(reason: status.description)
        }
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
