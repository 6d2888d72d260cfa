import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

struct RotateKey: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Replace the vault key and re-encrypt every item.",
        discussion: """
            Every key slot must be opened by the unlock credential or one given here, so no slot is lost. \
            A Secret Service slot is opened through the Secret Service, a systemd-creds slot through \
            systemd-creds (one that no longer opens on this machine must be removed first).
            """)

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("also-keyfile"), help: ArgumentHelp("A key file that opens another slot (repeatable).", valueName: "path"))
    var keyFiles: [String] = []
    @Option(name: .customLong("also-passphrase-fd"), help: ArgumentHelp("A passphrase for another slot, from this descriptor (repeatable).", valueName: "n"))
    var passphraseFDs: [Int32] = []

    var vaultOptions: VaultOptions? { root.vault }
    var ownDescriptors: [Int32] { passphraseFDs }

    func run() throws {
        let vault = try Vault.open(at: try root.vault.url())
        let credential = try root.unlock(vault)
        var credentials = [credential] + keyFiles.map { VaultCredential.keyFile(URL(fileURLWithPath: $0)) }
        // A Secret Service slot is rewrapped through the Secret Service itself.
        let slots = try vault.keySlots()
        if slots.contains(where: { $0.kind == .secretService }) {
            credentials.append(.secretService(root.storeOptions.secretService))
        }
        // So is a systemd-creds slot, through systemd-creds (its key-encryption key stays).
        if slots.contains(where: \.isSystemdCredential) {
            credentials.append(.systemdCredential(root.storeOptions.systemdCredentials))
        }
        for fd in passphraseFDs {
            credentials.append(try .passphrase(utf8: try DescriptorInput.secret(fd, what: "passphrase")))
        }
        try vault.rotateVaultKey(credentials: credentials)
        try StandardStreams.printLine("vault key rotated")
    }
}
